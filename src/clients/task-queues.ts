import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** Whether the server has seen any poller on the task queue recently (it remembers pollers for minutes). */
export async function hasPollers(client: Client, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).length > 0;
}

/** Whether the workflow has a workflow task scheduled that no worker has started: no live worker polls its queue. */
export async function isWorkflowTaskUnclaimed(client: Client, workflowId: string): Promise<boolean> {
  const description = await client.workflowService
    .describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId } })
    .catch(() => undefined);
  const state = description?.pendingWorkflowTask?.state;
  return state === temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED;
}
