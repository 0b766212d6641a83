import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import { type CycleInput, CycleInputSchema, type CycleResult, type ParsedCycleInput } from '../core/cycle/input';
import { CycleError } from '../common/failure-types';
import { runCycle } from './cycle/run-cycle';
import type { CycleFeature } from './cycle/tool-handler';
import { scratchpadTools } from './agent/scratchpad-tools';
import { subagentTool } from './agent/subagent';
import { investigationFeature, noBoardWrite } from './research/investigation';
import { stageFeature } from './staged/stage';
import { withDefaultKind } from '../core/cycle/input';

/** The features a cycle of each kind runs with, made fresh for it: the kernel itself knows none of them. */
function featuresOf(input: ParsedCycleInput): CycleFeature[] {
  const features = [scratchpadTools(), subagentTool()];
  if (input.kind === 'investigation') return [...features, investigationFeature(input)];
  features.push(noBoardWrite(input));
  if (input.kind === 'stage') features.push(stageFeature(input));
  return features;
}

function parseInput(raw: unknown): ParsedCycleInput {
  const parsed = CycleInputSchema().safeParse(withDefaultKind(raw));
  // A ZodError thrown here would fail the workflow task forever; fail the workflow instead.
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(`invalid cycle input: ${z.prettifyError(parsed.error)}`, CycleError.BadInput);
  }
  return parsed.data;
}

/** One cycle of an agent, a sub-agent, a research investigation or a staged run's stage (design.md, The cycle). */
export async function agentCycle(rawInput: CycleInput): Promise<CycleResult> {
  const input = parseInput(rawInput);
  return runCycle(input, featuresOf(input));
}
