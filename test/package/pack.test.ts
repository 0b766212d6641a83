import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8')) as {
  dependencies: Record<string, string>;
};

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf-8', stdio: ['ignore', 'pipe', 'pipe'] });
}

let folder: string;
let files: string[];

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/client.js'))) throw new Error('run `npm run build` before this test');
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-pack-'));
  // The build is already there; `prepare` would rebuild it under other tests' feet.
  const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], ROOT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const tarball = path.join(folder, packed[0]!.filename);
  files = packed[0]!.files.map((file) => file.path);
  // Offline: the package from its tarball, its dependencies linked from this repository's node_modules.
  const app = path.join(folder, 'app');
  fs.mkdirSync(app);
  const dependencies = Object.fromEntries([
    ['durable-scratchpad', `file:${tarball}`],
    ...Object.keys(manifest.dependencies).map((name) => [name, `file:${path.join(ROOT, 'node_modules', name)}`]),
  ]);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
}, 120_000);

afterAll(() => {
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

const inApp = (script: string): string => run('node', ['-e', script], path.join(folder, 'app'));

describe('the packed package', () => {
  it('holds dist/src, bin, README and examples, and no tests or sources', () => {
    for (const file of [
      'dist/src/client.js',
      'dist/src/client.d.ts',
      'dist/src/worker.js',
      'dist/src/workflows/index.js',
      'bin/scratchpad.js',
      'README.md',
      'examples/embed-in-your-worker.ts',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => /^(test|src|bench|scripts|dist\/(test|bench|scripts))\//.test(file))).toEqual([]);
  });

  it("require('durable-scratchpad') works from another folder, without loading worker code", () => {
    const output = inApp(`
      const root = require('durable-scratchpad');
      const loaded = Object.keys(require.cache).filter((file) => file.includes('@temporalio/worker'));
      console.log(JSON.stringify({ keys: Object.keys(root), loaded }));
    `);
    const { keys, loaded } = JSON.parse(output) as { keys: string[]; loaded: string[] };
    expect(keys).toEqual(
      expect.arrayContaining(['ScratchpadSchema', 'sendUpdate', 'scratchpadQuery', 'agentWorkflowId']),
    );
    expect(loaded).toEqual([]);
  });

  it('serves the worker and workflows subpaths and the bin', () => {
    const output = inApp(`
      const worker = require('durable-scratchpad/worker');
      console.log(typeof worker.ScratchpadPlugin, typeof worker.createActivities);
      console.log(require.resolve('durable-scratchpad/workflows'));
    `);
    expect(output).toContain('function function');
    expect(output).toMatch(/node_modules\/durable-scratchpad\/dist\/src\/workflows\/index\.js/);
    expect(run(path.join(folder, 'app/node_modules/.bin/scratchpad'), ['--help'], folder)).toMatch(
      /^Usage: scratchpad/,
    );
  });
});
