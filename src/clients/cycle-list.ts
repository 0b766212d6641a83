import type { Client } from '@temporalio/client';
import { parseCycleWorkflowId } from '../common/ids';
import { visibilityString } from './visibility';

/** One cycle of an agent as visibility lists it. */
export interface CycleSummary {
  workflowId: string;
  runId: string;
  n: number;
  status: string;
  startTime: Date;
  closeTime?: Date;
}

/** Every cycle of the agent known to visibility, oldest first. */
export async function listAgentCycles(client: Client, agentId: string): Promise<CycleSummary[]> {
  const cycles: CycleSummary[] = [];
  const query = `WorkflowType = 'agentCycle' AND AgentId = ${visibilityString(agentId)}`;
  for await (const execution of client.workflow.list({ query })) {
    const parsed = parseCycleWorkflowId(execution.workflowId);
    if (!parsed || parsed.agentId !== agentId) continue;
    cycles.push({
      workflowId: execution.workflowId,
      runId: execution.runId,
      n: parsed.n,
      status: execution.status.name,
      startTime: execution.startTime,
      closeTime: execution.closeTime,
    });
  }
  return cycles.sort((a, b) => a.n - b.n || a.startTime.getTime() - b.startTime.getTime());
}
