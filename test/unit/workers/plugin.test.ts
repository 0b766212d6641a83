import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { SHARED_WORKFLOW_MODULES } from '../../../src/config/paths';
import { KeptBundle } from '../../../src/workers/kept-bundle';
import { ScratchpadPlugin } from '../../../src/workers/plugin';
import { MemoryObservationStore } from '../../../src/activities/observations/memory-store';

const plugin = new ScratchpadPlugin({
  tools: { sandboxRoot: os.tmpdir(), shellAllow: [], shellTimeoutMs: 1000, fetchAllowHosts: [], fetchMaxBytes: 1000 },
  // By default the plugin opens the data directory's SQLite file: these checks need no store at all.
  observations: new MemoryObservationStore(),
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
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'kept-bundle-'));
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

  it('bundles at the first start, and keeps nothing until the worker runs', () => {
    const options = { taskQueue: 'q', plugins: [plugin] } as WorkerOptions;
    // The plugin's options at its first start: the SDK bundles, and the plugin hooks webpack.
    const configured = plugin.configureWorker(options);
    expect(configured.workflowsPath).toMatch(/workflows/);
    expect(configured.bundlerOptions?.preloadModules).toEqual([...SHARED_WORKFLOW_MODULES]);
    expect(configured.bundlerOptions?.webpackConfigHook).toBeInstanceOf(Function);

    const first = KeptBundle.of(options, [], () => directory)!.apply(configured);
    emit(first, 'the bundled code');
    const kept = KeptBundle.of(options, [], () => directory)!;
    expect(kept.apply(configured).workflowBundle).toBeUndefined();
    // Kept only once the worker runs: until then the SDK may still refuse the bundle.
    expect(fs.readdirSync(directory)).toEqual([]);
  });

  it('runs the kept bundle at a later start, with no bundler options or workflow modules for the SDK to ignore', () => {
    const options = { taskQueue: 'q', plugins: [plugin] } as WorkerOptions;
    const configured = plugin.configureWorker(options);
    const first = KeptBundle.of(options, ['/telemetry.js'], () => directory)!;
    emit(first.apply(configured), 'the bundled code');
    first.keep();

    const later = KeptBundle.of(options, ['/telemetry.js'], () => directory)!.apply({
      ...configured,
      interceptors: { workflowModules: ['/telemetry.js'] },
    });
    const codePath = (later.workflowBundle as { codePath: string }).codePath;
    expect(path.dirname(codePath)).toBe(directory);
    expect(fs.readFileSync(codePath, 'utf8')).toBe('the bundled code');
    expect(later).toMatchObject({ workflowsPath: undefined, bundlerOptions: undefined });
    expect(later.interceptors?.workflowModules).toBeUndefined();
    // Telemetry's workflow modules are part of the bundle: a worker without them has a bundle of its own.
    expect(KeptBundle.of(options, [], () => directory)!.apply(configured).workflowBundle).toBeUndefined();
  });

  it.each<[string, Partial<WorkerOptions>]>([
    ['workflows', { workflowsPath: path.resolve(__dirname, '../../../examples/your-workflows.ts') }],
    ['bundler options', { bundlerOptions: { ignoreModules: ['fs'] } }],
    ['workflow interceptors', { interceptors: { workflowModules: ['/app/interceptors.js'] } }],
    ['a payload converter', { dataConverter: { payloadConverterPath: '/app/converter.js' } }],
    ['a plugin', { plugins: [plugin, { name: 'theirs' }] }],
  ])('bundles at every start for a worker with %s of the user’s own', (_what, own) => {
    const options = { taskQueue: 'q', plugins: [plugin], ...own } as WorkerOptions;
    expect(KeptBundle.of(options, [], () => directory)).toBeUndefined();
    const configured = plugin.configureWorker(options);
    expect(configured.workflowBundle).toBeUndefined();
    expect(configured.bundlerOptions?.webpackConfigHook).toBeUndefined();
  });
});
