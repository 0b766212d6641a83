import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { signalAgent } from '../clients/agents';
import { wakeSignal } from '../common/messages/agent';
import { type WakeAgentArgs, WakeAgentArgsSchema, type WakeAgentResult } from '../common/workflow-types';
import { ScheduleError } from '../common/failure-types';
import { parseWorkflowInput } from '../common/workflow-input';

export type { WakeAgentArgs, WakeAgentResult };

/**
 * The `wakeAgent` activity: signal-with-start of `agent/<agentId>` with `wake` (trigger `schedule`),
 * which workflow code cannot do itself. Without a client it fails non-retryably.
 */
export function createWakeAgent(client: Client | undefined) {
  return async function wakeAgent(args: WakeAgentArgs): Promise<WakeAgentResult> {
    const { agentId, taskQueue, tasks } = parseWorkflowInput(
      WakeAgentArgsSchema(),
      args,
      ScheduleError.BadInput,
      'wake',
    );
    if (!client) {
      throw ApplicationFailure.nonRetryable(
        'this worker was created without a Temporal client',
        ScheduleError.NoClient,
      );
    }
    const handle = await signalAgent(client, { agentId, taskQueue }, wakeSignal, [{ tasks, trigger: 'schedule' }]);
    return { workflowId: handle.workflowId, runId: handle.signaledRunId };
  };
}
