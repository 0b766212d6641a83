import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

async function workflowPollers(client: Client, taskQueue: string) {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return response.pollers ?? [];
}

/** Whether the server has seen any poller on the task queue recently (it remembers pollers for minutes). */
export async function hasPollers(client: Client, taskQueue: string): Promise<boolean> {
  return (await workflowPollers(client, taskQueue)).length > 0;
}

/** A live worker polls again at least every minute (the server's long-poll expiry); older listings are of gone ones. */
const FRESH_POLL_MS = 90_000;
/** How long a call waits for a worker that may be starting before it refuses. */
const WORKER_GRACE_MS = 3_000;

/**
 * Refuses, with the command line's advice, a call that needs a worker when none has polled `taskQueue` lately: it
 * would otherwise wait for ever, and start an agent that no one runs.
 */
export async function requireWorker(client: Client, taskQueue: string): Promise<void> {
  const live = async () => {
    const now = Date.now();
    return (await workflowPollers(client, taskQueue)).some((poller) => {
      const last = poller.lastAccessTime?.seconds;
      return last === undefined || last === null || now - Number(last) * 1000 < FRESH_POLL_MS;
    });
  };
  // A worker started a moment ago may not have polled yet.
  const deadline = Date.now() + WORKER_GRACE_MS;
  while (!(await live())) {
    if (Date.now() < deadline) {
      await sleep(200);
      continue;
    }
    throw new Error(
      `no worker polls task queue "${taskQueue}": start one with \`npx scratchpad up\` (in the background) or ` +
        '`npx scratchpad worker` in another terminal, or run one in your program (createWorker)',
    );
  }
}

/**
 * The workflow task of `workflowId` that is scheduled and that no worker has started (its scheduled time and attempt,
 * which name it), or undefined. The same one seen twice, a grace period apart, means no live worker polls its queue:
 * once alone, it may have been scheduled a moment ago.
 */
export async function unclaimedWorkflowTask(client: Client, workflowId: string): Promise<string | undefined> {
  const description = await client.workflowService
    .describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId } })
    .catch(() => undefined);
  const pending = description?.pendingWorkflowTask;
  if (pending?.state !== temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED) {
    return undefined;
  }
  const scheduled = pending.scheduledTime;
  return `${scheduled?.seconds ?? 0}.${scheduled?.nanos ?? 0}#${pending.attempt ?? 0}`;
}
