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

  it('adds no bundler options to a worker given a prebuilt bundle (the SDK would ignore them with a warning)', () => {
    const options = plugin.configureWorker({
      taskQueue: 'q',
      workflowBundle: { code: 'bundled elsewhere' },
    } as WorkerOptions);
    expect(options.bundlerOptions).toBeUndefined();
  });

  it('does the same for a replay worker', () => {
    const options = plugin.configureReplayWorker({});
    expect(options.bundlerOptions?.preloadModules).toEqual([...SHARED_WORKFLOW_MODULES]);
  });
});
