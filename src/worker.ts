import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities';
import { createModelResolver } from './activities/model/registry';
import type { ModelProvider } from './activities/model/provider';
import type { ToolOptions } from './activities/tools/types';
import type { Config } from './config';

/** Where the workflow code lives, for bundling and for replay. */
export const WORKFLOWS_PATH = require.resolve('./workflows');

/** Tool limits from configuration. */
export function toolOptions(config: Config): ToolOptions {
  return {
    sandboxRoot: config.sandbox,
    shellAllow: config.SCRATCHPAD_SHELL_ALLOW,
    shellTimeoutMs: config.SCRATCHPAD_SHELL_TIMEOUT_MS,
    fetchAllowHosts: config.SCRATCHPAD_FETCH_ALLOW,
    fetchMaxBytes: config.SCRATCHPAD_FETCH_MAX_BYTES,
  };
}

export interface WorkerSetup {
  config: Config;
  /** The default model spec (already validated by `resolveModelSpec`). */
  modelSpec: string;
  connection?: NativeConnection;
  /** Providers registered under a spec instead of being built from it (tests, the demo). */
  providers?: Record<string, ModelProvider>;
  workerOptions?: Partial<WorkerOptions>;
}

/** A worker running the project's workflows and activities on the configured task queue. */
export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  const { config } = setup;
  const connection = setup.connection ?? (await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS }));
  const resolveModel = createModelResolver({
    defaultSpec: setup.modelSpec,
    anthropicApiKey: config.ANTHROPIC_API_KEY,
    anthropicBaseURL: config.ANTHROPIC_BASE_URL,
    providers: setup.providers,
  });
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.SCRATCHPAD_TASK_QUEUE,
    workflowsPath: WORKFLOWS_PATH,
    activities: createActivities({ resolveModel, tools: toolOptions(config) }),
    ...setup.workerOptions,
  });
}
