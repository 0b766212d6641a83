import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
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
import { sandboxOptions, TEST_WORKER_THREAD } from './worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

/**
 * A worker whose research workers' model replays `routes`, fetching from the fixture web `web`; `providers` serve
 * other model specs (a supervisor's own model).
 */
export async function researchTestWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleOption,
  web: FixtureWeb,
  routes: Record<string, ScriptEntry[]>,
  options: {
    taskQueue?: string;
    observations?: ObservationStore;
    providers?: Record<string, ModelProvider>;
    /** A payload codec's converter, and a client that speaks it for the activities (board writes, queries). */
    dataConverter?: DataConverter;
    client?: Client;
  } = {},
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
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools, observations, client: options.client ?? env.client }),
    sinks: workerSinks(),
    ...(options.dataConverter && { dataConverter: options.dataConverter }),
  });
  return { worker, taskQueue, model };
}

/**
 * A research worker's capability token, from the input its history holds: what whoever reads history without the
 * payload codec can read.
 */
export async function workerToken(client: Client, workerId: string): Promise<string> {
  const history = await client.workflow.getHandle(workerId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return (JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8')) as { token: string }).token;
}
