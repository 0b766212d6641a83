import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { type WakeAgentArgs, WakeAgentArgsSchema, type WakeAgentResult } from '../../common/workflow-types';
import { ScheduleError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';

const { wakeAgent } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  // Bounded so a wake that cannot get through ends this run; the schedule's next tick tries again.
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 10 },
});

/**
 * The action of an agent's schedule: wakes `agent/<agentId>` with the schedule's tasks (signal-with-start),
 * so a scheduled cycle runs in the agent's own memory, one at a time with its other cycles.
 */
export async function scheduledWake(rawInput: WakeAgentArgs): Promise<WakeAgentResult> {
  return wakeAgent(parseWorkflowInput(WakeAgentArgsSchema(), rawInput, ScheduleError.BadInput, 'wake input'));
}
