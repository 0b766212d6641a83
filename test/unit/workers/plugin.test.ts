import * as os from 'node:os';
import type { WorkerOptions } from '@temporalio/worker';
import { SHARED_WORKFLOW_MODULES } from '../../../src/config/paths';
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
