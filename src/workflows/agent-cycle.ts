import {
  type CycleInput,
  CycleInputSchema,
  type CycleResult,
  type ParsedCycleInput,
  withDefaultKind,
} from '../core/cycle/input';
import { CycleError } from '../common/failure-types';
import { parseWorkflowInput } from '../common/workflow-input';
import { runCycle } from './cycle/run-cycle';
import type { CycleFeature } from './cycle/tool-handler';
import { scratchpadTools } from './agent/scratchpad-tools';
import { subagentTool } from './agent/subagent';
import { investigationFeature, noBoardWrite } from './research/investigation';
import { stageFeature } from './staged/stage';

/** The features a cycle of each kind runs with, made fresh for it: the kernel itself knows none of them. */
function featuresOf(input: ParsedCycleInput): CycleFeature[] {
  const features = [scratchpadTools(), subagentTool()];
  if (input.kind === 'investigation') return [...features, investigationFeature(input)];
  features.push(noBoardWrite(input));
  if (input.kind === 'stage') features.push(stageFeature(input));
  return features;
}

/** One cycle of an agent, a sub-agent, a research investigation or a staged run's stage (design.md, The cycle). */
export async function agentCycle(rawInput: CycleInput): Promise<CycleResult> {
  const input = parseWorkflowInput(CycleInputSchema(), withDefaultKind(rawInput), CycleError.BadInput, 'cycle input');
  return runCycle(input, featuresOf(input));
}
