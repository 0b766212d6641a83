import * as fs from 'node:fs';
import * as path from 'node:path';

const MESSAGES = path.resolve(__dirname, '..', '..', '..', 'src', 'common', 'messages');

/** Export names defined by more than one message module as different values: a client could not tell them apart. */
export function clashes(modules: Record<string, Record<string, unknown>>): string[] {
  const seen = new Map<string, { file: string; value: unknown }>();
  const found: string[] = [];
  for (const [file, exports] of Object.entries(modules)) {
    for (const [name, value] of Object.entries(exports)) {
      const earlier = seen.get(name);
      if (earlier && earlier.value !== value) found.push(`${name}: ${earlier.file} and ${file}`);
      else seen.set(name, { file, value });
    }
  }
  return found;
}

describe('message definitions (common/messages, one file per workflow)', () => {
  const modules = Object.fromEntries(
    fs
      .readdirSync(MESSAGES)
      .filter((file) => file.endsWith('.ts'))
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      .map((file) => [file, require(path.join(MESSAGES, file)) as Record<string, unknown>]),
  );

  it('has one file per workflow with messages', () => {
    expect(Object.keys(modules).sort()).toEqual(['agent.ts', 'cycle.ts', 'research.ts', 'staged.ts']);
  });

  it('never exports one name for two different definitions', () => {
    expect(clashes(modules)).toEqual([]);
  });

  it('sees a clash when there is one', () => {
    expect(clashes({ 'a.ts': { statusQuery: {} }, 'b.ts': { statusQuery: {} } })).toEqual([
      'statusQuery: a.ts and b.ts',
    ]);
  });
});
