import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import type { ModelProvider } from '../../src/activities/model/provider';
import { RoutedScriptedProvider } from '../../src/activities/model/routed';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import type { ObservationStore } from '../../src/activities/observations/entry';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import type { FixtureWeb } from '../../src/cli/demo/fixture-web';
import { workerSinks } from '../../src/workers/create-worker';
import { uniqueTaskQueue } from './temporal';
import { sandboxOptions } from './worker';

/**
 * A worker whose research workers' model replays `routes`, fetching from the fixture web `web`; `providers` serve
 * other model specs (a supervisor's own model).
 */
export async function researchTestWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  web: FixtureWeb,
  routes: Record<string, ScriptEntry[]>,
  options: { taskQueue?: string; observations?: ObservationStore; providers?: Record<string, ModelProvider> } = {},
) {
  const model = new RoutedScriptedProvider(routes, 'research');
  const taskQueue = options.taskQueue ?? uniqueTaskQueue('test-research');
  const resolveModel = createModelResolver({
    defaultSpec: 'scripted:research',
    providers: { ...options.providers, 'scripted:research': model },
  });
  // Loopback is allowed explicitly: the fixture web lives there.
  const tools = { ...sandboxOptions(), ...web.allowance, searchUrl: web.searchUrl };
  const observations = options.observations ?? new MemoryObservationStore();
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools, observations, client: env.client }),
    sinks: workerSinks(),
  });
  return { worker, taskQueue, model };
}

/** Polls `check` until it holds. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
