import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadedBy, relative } from '../../helpers/module-graph';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  exports: Record<string, { default: string; types: string }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const workerDependencies = Object.keys(manifest.peerDependenciesMeta).filter(
  (name) => manifest.peerDependenciesMeta[name]?.optional,
);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Packages a module loads as it is evaluated: its value imports of packages (a lazy `import()` loads nothing yet). */
function packagesLoadedAtStart(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const statements = text.matchAll(/^(?:import|export)\s+([^;]*?)\s*from\s+'([^.'][^']*)'|^import\s+'([^.'][^']*)'/gms);
  return [...statements].flatMap(([, names = '', from = '', bare]) => {
    if (bare) return [packageName(bare)];
    if (names.startsWith('type ')) return [];
    const braces = /^\{([^}]*)\}$/.exec(names.trim());
    const typesOnly = braces?.[1]!.split(',').every((name) => name.trim() === '' || name.trim().startsWith('type '));
    return typesOnly ? [] : [packageName(from)];
  });
}

describe("the package's entry points: src/client.ts, src/worker.ts and src/testing.ts", () => {
  it('are what the exports map serves, and nothing else is', () => {
    expect(manifest.main).toBe('dist/src/client.js');
    expect(Object.keys(manifest.exports)).toEqual(['.', './client', './worker', './testing', './package.json']);
    expect(manifest.exports['.']!.default).toBe('./dist/src/client.js');
    expect(manifest.exports['./client']!.default).toBe('./dist/src/client.js');
    expect(manifest.exports['./worker']!.default).toBe('./dist/src/worker.js');
    expect(manifest.exports['./testing']!.default).toBe('./dist/src/testing.js');
    for (const entry of ['src/client.ts', 'src/worker.ts', 'src/testing.ts']) {
      expect(fs.existsSync(path.join(ROOT, entry))).toBe(true);
    }
  });

  it("leave the worker's own dependencies to the worker: optional peers, and devDependencies of this repository", () => {
    expect(workerDependencies).toEqual(
      expect.arrayContaining(['@temporalio/worker', 'better-sqlite3', '@anthropic-ai/sdk', 'openai']),
    );
    for (const name of workerDependencies) {
      expect(manifest.dependencies[name]).toBeUndefined();
      expect(manifest.devDependencies[name]).toBe(manifest.peerDependencies[name]);
    }
  });

  it("load none of the worker's dependencies from the client entry", () => {
    const modules = [...loadedBy(path.join(ROOT, 'src', 'client.ts'))];
    const loading = modules.flatMap((file) =>
      packagesLoadedAtStart(file)
        .filter((name) => workerDependencies.includes(name))
        .map((name) => `${relative([file])[0]}: ${name}`),
    );
    expect(modules.length).toBeGreaterThan(20);
    expect(loading).toEqual([]);
  });

  it('finds a worker dependency a module loads', () => {
    const worker = path.join(ROOT, 'src', 'workers', 'create-worker.ts');
    expect(packagesLoadedAtStart(worker)).toContain('@temporalio/worker');
  });
});
