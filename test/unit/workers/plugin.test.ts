import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Worker, WorkerOptions } from '@temporalio/worker';
import { SHARED_WORKFLOW_MODULES } from '../../../src/config/paths';
import { KeptBundle } from '../../../src/workers/kept-bundle';
import { ScratchpadPlugin } from '../../../src/workers/plugin';
import { MemoryObservationStore } from '../../../src/activities/observations/memory-store';

const plugin = new ScratchpadPlugin({
  tools: { sandboxRoot: os.tmpdir(), shellAllow: [], shellTimeoutMs: 1000, fetchAllowHosts: [], fetchMaxBytes: 1000 },
  // By default the plugin opens the data directory's SQLite file: these checks need no store at all.
  observations: new MemoryObservationStore(),
  // Bundles at every start, whatever the bundle cache of this machine holds; the kept bundle has tests of its own.
  bundleCache: false,
});

describe('the worker plugin', () => {
  it("shares the package's workflow modules and keeps the user's own preloads", () => {
    const options = plugin.configureWorker({
      taskQueue: 'q',
      bundlerOptions: { preloadModules: ['user-module'], ignoreModules: ['fs'] },
    } as WorkerOptions);
    expect(options.bundlerOptions?.preloadModules).toEqual(['user-module', ...SHARED_WORKFLOW_MODULES]);
    expect(options.bundlerOptions?.ignoreModules).toEqual(['fs']);
  });

  it('adds no bundler options and no workflows path to a worker given a prebuilt bundle (the SDK would warn)', () => {
    const options = plugin.configureWorker({
      taskQueue: 'q',
      workflowBundle: { code: 'bundled elsewhere' },
    } as WorkerOptions);
    expect(options.bundlerOptions).toBeUndefined();
    expect(options.workflowsPath).toBeUndefined();
    expect(options.workflowBundle).toEqual({ code: 'bundled elsewhere' });
  });

  it('bundles its workflows with the worker when given no bundle', () => {
    expect(plugin.configureWorker({ taskQueue: 'q' } as WorkerOptions).workflowsPath).toMatch(/workflows/);
  });

  it('does the same for a replay worker', () => {
    const options = plugin.configureReplayWorker({});
    expect(options.bundlerOptions?.preloadModules).toEqual([...SHARED_WORKFLOW_MODULES]);
  });
});

describe("a plugin worker that runs the package's workflows alone", () => {
  let directory: string;
  let kept: ScratchpadPlugin;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'kept-bundle-'));
    kept = new ScratchpadPlugin({
      tools: {
        sandboxRoot: os.tmpdir(),
        shellAllow: [],
        shellTimeoutMs: 1000,
        fetchAllowHosts: [],
        fetchMaxBytes: 1000,
      },
      observations: new MemoryObservationStore(),
      telemetry: false,
      bundleCache: directory,
    });
  });
  afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

  /** What webpack does with the hook given: builds, then emits the bundle. */
  function emit(options: WorkerOptions, code: string): void {
    const config = options.bundlerOptions!.webpackConfigHook!({ plugins: [] } as never) as {
      plugins: { apply(compiler: unknown): void }[];
    };
    let emitted: ((file: string, info: { content: Buffer }) => void) | undefined;
    for (const webpackPlugin of config.plugins) {
      webpackPlugin.apply({
        hooks: { assetEmitted: { tap: (_name: string, run: typeof emitted) => (emitted = run) } },
      });
    }
    emitted!('workflow-bundle.js', { content: Buffer.from(code) });
  }

  /** The plugin's part in running a worker, with nothing to run. */
  const run = (plugin: ScratchpadPlugin) => plugin.runWorker({} as Worker, () => Promise.resolve());

  it('bundles at the first start and keeps that bundle once the worker runs; later starts take it', async () => {
    const options = { taskQueue: 'q', plugins: [kept] } as WorkerOptions;
    const first = kept.configureWorker(options);
    expect(first.workflowBundle).toBeUndefined();
    expect(first.workflowsPath).toMatch(/workflows/);
    expect(first.bundlerOptions?.preloadModules).toEqual([...SHARED_WORKFLOW_MODULES]);
    emit(first, 'the bundled code');
    // Not before the worker runs: until then the SDK may still refuse the bundle.
    expect(fs.readdirSync(directory)).toEqual([]);
    await run(kept);

    const later = kept.configureWorker(options);
    const codePath = (later.workflowBundle as { codePath: string }).codePath;
    expect(path.dirname(codePath)).toBe(directory);
    expect(fs.readFileSync(codePath, 'utf8')).toBe('the bundled code');
    // Nothing for the SDK to ignore with a warning: the bundle has the workflows and their modules.
    expect(later).toMatchObject({ workflowsPath: undefined, bundlerOptions: undefined });
    expect(later.interceptors?.workflowModules).toBeUndefined();
  });

  it('keeps nothing in a folder other users could write to, nor with bundleCache: false', async () => {
    fs.chmodSync(directory, 0o777);
    const options = { taskQueue: 'q', plugins: [kept] } as WorkerOptions;
    expect(kept.configureWorker(options).bundlerOptions?.webpackConfigHook).toBeUndefined();
    await run(kept);
    expect(fs.readdirSync(directory)).toEqual([]);
    expect(KeptBundle.of(options, [], false)).toBeUndefined();
  });

  it.each<[string, Partial<WorkerOptions>]>([
    ['workflows', { workflowsPath: path.resolve(__dirname, '../../../examples/your-workflows.ts') }],
    ['bundler options', { bundlerOptions: { ignoreModules: ['fs'] } }],
    ['workflow interceptors', { interceptors: { workflowModules: ['/app/interceptors.js'] } }],
    ['a payload converter', { dataConverter: { payloadConverterPath: '/app/converter.js' } }],
    ['a plugin', { plugins: [plugin, { name: 'theirs' }] }],
  ])('bundles at every start for a worker with %s of the user’s own', (_what, own) => {
    const options = kept.configureWorker({ taskQueue: 'q', plugins: [kept], ...own } as WorkerOptions);
    expect(options.workflowBundle).toBeUndefined();
    expect(options.bundlerOptions?.webpackConfigHook).toBeUndefined();
  });
});
