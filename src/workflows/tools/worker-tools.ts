import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { WorkerToolsResult } from '../../common/workflow-types';

/**
 * The catalogue a worker of this task queue would offer (`scratchpad tools`): a workflow, so any client reaches a
 * worker without importing worker code. The activity's schedule-to-start timeout ends it when no worker polls.
 */
export async function workerTools(): Promise<WorkerToolsResult> {
  const { describeTools } = proxyActivities<Activities>({
    scheduleToStartTimeout: '30s',
    startToCloseTimeout: '2m',
    retry: { maximumAttempts: 2 },
  });
  return describeTools();
}
