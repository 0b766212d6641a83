import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { type Config, ConfigError, loadConfig, resolveModelSpec } from '../config';
import { connectClient } from '../client';
import { createWorker } from '../worker';
import { CliError, EXIT } from './errors';

/** Configuration from the environment, with bad values reported as a CLI error. */
export function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

/** The model spec for commands that run a model; refuses with instructions when none is usable. */
export function modelSpec(current: Config, override?: string): string {
  try {
    return resolveModelSpec(current, override);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

/** A client, or a clear error naming the address and how to get a server. */
export async function client(current: Config): Promise<Client> {
  try {
    return await connectClient(current);
  } catch (error) {
    throw new CliError(
      `cannot reach Temporal at ${current.TEMPORAL_ADDRESS} (${(error as Error).message}).\n` +
        'Start a local server with `npx scratchpad dev`, or set TEMPORAL_ADDRESS to a running cluster.',
    );
  }
}

/** Whether some worker is polling the project's task queue. */
export async function hasWorker(temporalClient: Client, current: Config): Promise<boolean> {
  const response = await temporalClient.workflowService.describeTaskQueue({
    namespace: current.TEMPORAL_NAMESPACE,
    taskQueue: {
      name: current.SCRATCHPAD_TASK_QUEUE,
      kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
    },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).length > 0;
}

/**
 * Runs `work`, with an in-process worker for its duration when no worker polls the task queue,
 * so a single command works with nothing else running.
 */
export async function withWorker<T>(
  temporalClient: Client,
  current: Config,
  spec: string,
  work: () => Promise<T>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<T> {
  if (await hasWorker(temporalClient, current)) return work();
  log(`No worker polls task queue "${current.SCRATCHPAD_TASK_QUEUE}"; running one in this process (model ${spec}).`);
  const worker = await createWorker({ config: current, modelSpec: spec });
  return worker.runUntil(work());
}

/** Turns a rejected update (validator or handler error) into a CLI error carrying the workflow's reason. */
export async function unwrapUpdateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause as Error | undefined;
      throw new CliError(`rejected: ${cause?.message ?? error.message}`, EXIT.usage);
    }
    throw error;
  }
}
