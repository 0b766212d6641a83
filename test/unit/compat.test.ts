import * as fs from 'node:fs';
import * as path from 'node:path';
import { PATCHES } from '../../src/workflows/compat';

const SRC = path.resolve(__dirname, '..', '..', 'src');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every `patched(...)` / `deprecatePatch(...)` call in `text`, with its argument as written. */
export function patchCalls(text: string): string[] {
  return [...text.matchAll(/\b(?:patched|deprecatePatch)\(\s*([^)]*)\)/g)].map((match) => (match[1] ?? '').trim());
}

describe('replay compatibility patches', () => {
  it('are all listed in workflows/compat.ts, by id', () => {
    const ids = new Set(PATCHES.map((patch) => patch.id));
    const code = sourceFiles(SRC).filter((file) => path.basename(file) !== 'compat.ts');
    const unlisted = code.flatMap((file) =>
      patchCalls(fs.readFileSync(file, 'utf8'))
        .filter((argument) => !ids.has(argument.replace(/^['"`]|['"`]$/g, '')))
        .map((argument) => `${path.relative(SRC, file)}: patched(${argument})`),
    );
    expect(unlisted).toEqual([]);
  });

  it('finds a patch call that is not listed', () => {
    expect(patchCalls("if (patched('new-rule')) run();\nconst x = patched(SOME_ID);")).toEqual([
      "'new-rule'",
      'SOME_ID',
    ]);
  });

  it('each listed patch says why and since when', () => {
    for (const patch of PATCHES) expect(patch).toEqual(expect.objectContaining({ why: expect.any(String) }));
  });
});
