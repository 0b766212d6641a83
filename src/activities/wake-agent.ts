import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { signalAgent } from '../clients/agents';
import { wakeSignal } from '../common/messages/agent';
import { validateAgentId } from '../common/ids';
import type { WakeAgentArgs, WakeAgentResult } from '../common/workflow-types';
import { ScheduleError } from '../common/failure-types';

/** What a schedule's action passes on: the agent to wake, its task queue, and the tasks to enqueue. */
export const WakeAgentArgsSchema = z.object({
  agentId: z.string().refine((agentId) => validateAgentId(agentId) === undefined, { message: 'invalid agent id' }),
  taskQueue: z.string().min(1),
  tasks: z.array(z.string().trim().min(1).max(5000)).default([]),
});
export type { WakeAgentArgs, WakeAgentResult };

/**
 * The `wakeAgent` activity: signal-with-start of `agent/<agentId>` with `wake` (trigger `schedule`),
 * which workflow code cannot do itself. Without a client it fails non-retryably.
 */
export function createWakeAgent(client: Client | undefined) {
  return async function wakeAgent(args: WakeAgentArgs): Promise<WakeAgentResult> {
    const parsed = WakeAgentArgsSchema.safeParse(args);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(`invalid wake: ${z.prettifyError(parsed.error)}`, ScheduleError.BadInput);
    }
    if (!client) {
      throw ApplicationFailure.nonRetryable(
        'this worker was created without a Temporal client',
        ScheduleError.NoClient,
      );
    }
    const { agentId, taskQueue, tasks } = parsed.data;
    const handle = await signalAgent(client, { agentId, taskQueue }, wakeSignal, [{ tasks, trigger: 'schedule' }]);
    return { workflowId: handle.workflowId, runId: handle.signaledRunId };
  };
}
