import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'src', 'cli');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe("the package's two entry points, src/client.ts and src/worker.ts", () => {
  it('are what the exports map serves', () => {
    const { exports, main } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(main).toBe('dist/src/client.js');
    expect(exports['.'].default).toBe('./dist/src/client.js');
    expect(exports['./client'].default).toBe('./dist/src/client.js');
    expect(exports['./worker'].default).toBe('./dist/src/worker.js');
    for (const entry of ['src/client.ts', 'src/worker.ts']) expect(fs.existsSync(path.join(ROOT, entry))).toBe(true);
  });

  it('are how the command line reaches the workflow facades and the worker', () => {
    const bypassing = sourceFiles(CLI).flatMap((file) =>
      [
        ...fs
          .readFileSync(file, 'utf8')
          .matchAll(/from '([^']*(?:clients\/(?:agents|research-runs|staged-runs)|workers\/)[^']*)'/g),
      ].map((match) => `${path.relative(ROOT, file)}: ${match[1]}`),
    );
    expect(bypassing).toEqual([]);
  });
});
