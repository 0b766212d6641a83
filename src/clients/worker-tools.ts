import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { WorkerToolsResult, WorkflowTypes } from '../common/workflow-types';
import { hasPollers, unclaimedWorkflowTask } from './task-queues';

/** No worker polls the task queue, so nothing can say which tools it has. */
export class NoWorkerError extends Error {
  override readonly name = 'NoWorkerError';
}

/** How long a worker that polls gets to pick the question up before it counts as gone. */
const PICKUP_MS = 5000;

/**
 * Asks a worker of `taskQueue` for its tools (the `workerTools` workflow). Throws {@link NoWorkerError} when no
 * worker polls, or when the pollers the server lists have gone (the server remembers them for minutes).
 */
export async function workerToolCatalogue(client: Client, taskQueue: string): Promise<WorkerToolsResult> {
  const noWorker = () =>
    new NoWorkerError(
      `no worker polls task queue "${taskQueue}": the tools are the worker's, so start one (\`scratchpad worker\` or \`scratchpad dev\`, with the same --tools and --mcp-config)`,
    );
  if (!(await hasPollers(client, taskQueue))) throw noWorker();
  const handle = await client.workflow.start<WorkflowTypes['workerTools']>('workerTools', {
    taskQueue,
    workflowId: `tools/${randomUUID()}`,
    workflowExecutionTimeout: '3m',
  });
  const result = handle.result();
  let timer: NodeJS.Timeout | undefined;
  const picked = await Promise.race([
    result.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PICKUP_MS))),
  ]);
  clearTimeout(timer);
  // The question's first task was scheduled when it started, PICKUP_MS ago: unclaimed now, it waited that long.
  if (!picked && (await unclaimedWorkflowTask(client, handle.workflowId)) !== undefined) {
    await handle.terminate('no worker picked it up').catch(() => undefined);
    throw noWorker();
  }
  return result;
}
