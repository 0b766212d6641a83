import { type AgentCycleInput, AgentCycleInputSchema, withDefaultKind } from '../../core/agent/cycle-input';
import type { CycleResult } from '../../core/cycle/input';
import { CycleError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import { runCycle } from '../cycle/run-cycle';
import type { CycleFeature } from '../cycle/tool-handler';
import { scratchpadTools } from './scratchpad-tools';
import { subagentTool } from './subagent';
import { replyFirst } from './reply-first';

/**
 * One cycle of an agent (design.md, The cycle): a task cycle over its task queue, or a chat turn whose reply goes to
 * the agent as soon as respond ends. Its sub-agents run as `subagentCycle` children.
 */
export async function agentCycle(rawInput: AgentCycleInput): Promise<CycleResult> {
  const raw = withDefaultKind(rawInput);
  const input = parseWorkflowInput(AgentCycleInputSchema(), raw, CycleError.BadInput, 'cycle input');
  const features: CycleFeature[] = [scratchpadTools(), subagentTool({ depth: 0 })];
  if (input.kind === 'chat') {
    const { message, twoPhase, reflectModel } = input;
    features.push({ chat: { message, twoPhase, reflectModel }, replied: replyFirst(input.agentId) });
  }
  return runCycle(input, features);
}
