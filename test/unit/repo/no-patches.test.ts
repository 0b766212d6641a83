import * as fs from 'node:fs';
import * as path from 'node:path';

const WORKFLOWS = path.resolve(__dirname, '..', '..', '..', 'src', 'workflows');

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

// Before 1.0 a change to workflow code re-records the saved histories (scripts/record-histories.ts) and runs of the
// previous version are drained or kept on their own build (README, Upgrading): no replay patch is ever added.
describe('workflow code before 1.0', () => {
  it('calls no patched() or deprecatePatch()', () => {
    const calls = sourceFiles(WORKFLOWS).flatMap((file) =>
      patchCalls(fs.readFileSync(file, 'utf8')).map((argument) => `${path.relative(WORKFLOWS, file)}: ${argument}`),
    );
    expect(calls).toEqual([]);
  });

  it('would see a patch call', () => {
    expect(patchCalls("if (patched('new-rule')) run();\nconst x = deprecatePatch(SOME_ID);")).toEqual([
      "'new-rule'",
      'SOME_ID',
    ]);
  });
});
