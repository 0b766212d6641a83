import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packedPackage } from '../helpers/packed-package';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
// Telemetry's packages are optional peers a worker does without unless tracing is on.
const workerDependencies = Object.keys(manifest.peerDependenciesMeta).filter(
  (name) =>
    manifest.peerDependenciesMeta[name]?.optional &&
    !name.startsWith('@opentelemetry/') &&
    name !== '@temporalio/interceptors-opentelemetry',
);
/** The most names `require('durable-scratchpad')` may expose (issue 30: a small public surface). */
const MAX_ROOT_NAMES = 60;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf-8', stdio: ['ignore', 'pipe', 'pipe'] });
}

let folder: string;
let app: string;
let files: string[];

beforeAll(async () => {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/testing.js'))) throw new Error('run `npm run build` before this test');
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-pack-'));
  const packed = await packedPackage(folder);
  files = packed.files;
  // Offline: the package from its tarball, its dependencies linked from this repository's node_modules. Its
  // dependencies only, as `npm install durable-scratchpad` installs them: a client.
  app = path.join(folder, 'app');
  fs.mkdirSync(app);
  const dependencies = Object.fromEntries([
    ['durable-scratchpad', `file:${packed.tarball}`],
    ...Object.keys(manifest.dependencies).map((name) => [name, `file:${path.join(ROOT, 'node_modules', name)}`]),
  ]);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
}, 120_000);

afterAll(() => {
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

const inApp = (script: string): string => run('node', ['-e', script], app);

describe('the packed package', () => {
  it('holds dist/src, bin, README, examples and the Temporal CLI build module, and no tests or sources', () => {
    for (const file of [
      'dist/src/client.js',
      'dist/src/client.d.ts',
      'dist/src/worker.js',
      'dist/src/testing.js',
      'dist/src/workflows/index.js',
      'bin/scratchpad.js',
      'README.md',
      'examples/embed-in-your-worker.ts',
      'deploy/temporal-cli/go.mod',
      'deploy/temporal-cli/go.sum',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => /^(test|src|bench|scripts|api|dist\/(test|bench|scripts|api-))/.test(file))).toEqual(
      [],
    );
  });
});

describe('a client-only install (the package and its dependencies, none of its optional peers)', () => {
  it('has none of the worker dependencies', () => {
    for (const name of workerDependencies) expect(fs.existsSync(path.join(app, 'node_modules', name))).toBe(false);
  });

  it(`require('durable-scratchpad') exposes the facades, at most ${MAX_ROOT_NAMES} names, and loads no worker code`, () => {
    const output = inApp(`
      const root = require('durable-scratchpad');
      const loaded = Object.keys(require.cache).filter((file) => /@temporalio[\\\\/]worker|better-sqlite3|openai|anthropic/.test(file));
      console.log(JSON.stringify({ keys: Object.keys(root), loaded }));
    `);
    const { keys, loaded } = JSON.parse(output) as { keys: string[]; loaded: string[] };
    expect(keys.length).toBeLessThanOrEqual(MAX_ROOT_NAMES);
    expect(keys).toEqual(
      expect.arrayContaining([
        'Agents',
        'ResearchRuns',
        'StagedRuns',
        'Approvals',
        'connectClient',
        'ScratchpadSchema',
      ]),
    );
    // No workflow-internal message definitions or helpers.
    expect(keys.filter((key) => /(Update|Query|Signal)$|^(create|load)Activities$/.test(key))).toEqual([]);
    expect(loaded).toEqual([]);
  });

  it("the worker entry names what to install, and so does the CLI's worker command", () => {
    const entry = spawnSync('node', ['-e', "require('durable-scratchpad/worker')"], { cwd: app, encoding: 'utf-8' });
    expect(entry.status).not.toBe(0);
    const line = /running a worker needs packages this install lacks .*: npm install (.*)/.exec(entry.stderr);
    expect(line?.[1]?.split(' ')).toEqual(
      workerDependencies.map((name) => {
        const spec = `${name}@${manifest.peerDependencies[name]}`;
        return /[\^~]/.test(spec) ? `'${spec}'` : spec;
      }),
    );
    const cli = spawnSync(path.join(app, 'node_modules/.bin/scratchpad'), ['worker'], {
      cwd: app,
      encoding: 'utf-8',
      env: { ...process.env, SCRATCHPAD_HOME: path.join(folder, 'home'), TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain(`scratchpad: running a worker needs packages this install lacks`);
    expect(cli.stderr).toContain('@temporalio/worker@');
  });

  it('serves no workflows subpath: the plugin bundles the workflow code by its own path', () => {
    const output = spawnSync('node', ['-e', "require.resolve('durable-scratchpad/workflows')"], {
      cwd: app,
      encoding: 'utf-8',
    });
    expect(output.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });
});

describe('with the worker dependencies installed beside it', () => {
  beforeAll(() => {
    // What `npm install` of the optional peers gives: each package in the app's node_modules.
    for (const name of workerDependencies) {
      fs.mkdirSync(path.dirname(path.join(app, 'node_modules', name)), { recursive: true });
      fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
    }
  });

  it('serves the worker and testing subpaths and the bin', () => {
    const output = inApp(`
      const worker = require('durable-scratchpad/worker');
      const testing = require('durable-scratchpad/testing');
      console.log(JSON.stringify({ worker: Object.keys(worker).sort(), testing: Object.keys(testing).sort() }));
    `);
    expect(JSON.parse(output)).toEqual({
      worker: ['ScratchpadPlugin', 'createWorker', 'defineTool', 'telemetryWorkflowModules'],
      testing: ['MemoryObservationStore', 'ScriptedProvider', 'startTestServer'],
    });
    expect(run(path.join(app, 'node_modules/.bin/scratchpad'), ['--help'], folder)).toMatch(/^Usage: scratchpad/);
  });
});
