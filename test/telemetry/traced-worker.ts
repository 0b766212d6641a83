import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client } from '@temporalio/client';
import { Worker, type WorkflowBundleOption, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { ToolRegistry } from '../../src/activities/tools/registry';
import { workflowBundleOptions } from '../../src/config/paths';
import { telemetryClientInterceptors, telemetryWorkflowModules, workerTelemetry } from '../../src/telemetry';
import { quietBundlerLogger } from '../../src/workers/bundle-cache';
import { workerSinks } from '../../src/workers/create-worker';
import { toolInfoOf } from '../../src/workers/tool-info';
import { sandboxOptions, TEST_WORKER_THREAD } from '../helpers/worker';
import { compiledBundle } from '../helpers/workflow-bundle';

/**
 * The workflow code with telemetry's interceptor modules, as `createWorker` bundles it with telemetry on: the compiled
 * tree's, from the product's bundle cache, so that the files and the traced commands of a run bundle it once.
 */
export async function tracedBundle(): Promise<WorkflowBundleOption> {
  const codePath = await compiledBundle('telemetry');
  if (codePath) return { codePath };
  const options = { ...workflowBundleOptions(), workflowInterceptorModules: telemetryWorkflowModules() };
  return bundleWorkflowCode({ ...options, logger: quietBundlerLogger });
}

/** A client whose calls carry their trace into the workflows (this process's telemetry must be started). */
export function tracedClient(env: TestWorkflowEnvironment): Client {
  return new Client({
    connection: env.connection,
    namespace: env.namespace ?? 'default',
    interceptors: { workflow: telemetryClientInterceptors() },
  });
}

/** A worker on `taskQueue` with this process's telemetry, whose model replays `script`. */
export async function tracedWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleOption,
  taskQueue: string,
  script: ScriptEntry[],
  options: { maxCachedWorkflows?: number; approve?: string[] } = {},
): Promise<{ worker: Worker; model: ScriptedProvider }> {
  const model = new ScriptedProvider(script, 'telemetry');
  const resolveModel = createModelResolver({ defaultSpec: 'scripted:test', providers: { 'scripted:test': model } });
  const toolRegistry = new ToolRegistry([], undefined, undefined, options.approve);
  const telemetry = workerTelemetry(undefined, { defaultModel: 'scripted:test', toolInfo: toolInfoOf(toolRegistry) });
  if (!telemetry) throw new Error('telemetry is off: set OTEL_EXPORTER_OTLP_ENDPOINT before the worker starts');
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    ...(options.maxCachedWorkflows !== undefined && { maxCachedWorkflows: options.maxCachedWorkflows }),
    activities: createActivities({
      resolveModel,
      tools: sandboxOptions(),
      observations: new MemoryObservationStore(),
      toolRegistry,
    }),
    sinks: workerSinks(),
    plugins: telemetry.plugins,
  });
  return { worker, model };
}
