import { ParentClosePolicy, executeChild, isCancellation } from '@temporalio/workflow';
import type { CycleInput, CycleResult, ParsedCycleInput } from '../../core/cycle/input';
import type { Observation } from '../../core/tools/observation';
import { parseSubagentArgs, subagentInput, subagentObservation, subagentRefusal } from '../../core/agent/subagent';
import { headCodePoints } from '../../core/text';
import { failureMessage } from '../../common/failure';
import { subagentCycleId } from '../../common/ids';
import { agentIdKey } from '../../common/search-attributes';
import type { AgentCycleWorkflow } from '../../common/workflow-types';

/** What one `spawn_subagent` call gave: the observation, and the child's result when a child ran. */
export interface SpawnOutcome {
  observation: Observation;
  /** A child was started (or tried): it used up one of the cycle's spawns and its id. */
  started: boolean;
  result?: CycleResult;
}

/**
 * Runs a fresh child `agentCycle` (by name: this module is part of the cycle itself) to its result: the one path
 * for `spawn_subagent` and for a research worker's investigation. A child that could not run is its error message.
 */
export async function runChildCycle(
  input: CycleInput & { cycleId: string },
  summary: string,
): Promise<{ result: CycleResult } | { error: string }> {
  try {
    const result = await executeChild<AgentCycleWorkflow>('agentCycle', {
      workflowId: input.cycleId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      typedSearchAttributes: [{ key: agentIdKey, value: input.agentId }],
      staticSummary: headCodePoints(summary, 120),
    });
    return { result };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { error: failureMessage(error) };
  }
}

/**
 * Seed 001's `spawn_subagent` as a child cycle. A refusal or a child that could not run is an observation, so the
 * parent cycle always goes on.
 */
export async function spawnSubagent(
  parent: ParsedCycleInput,
  parentCycleId: string,
  spawned: number,
  args: unknown,
): Promise<SpawnOutcome> {
  const refusal = subagentRefusal(parent.subagentDepth, spawned);
  if (refusal !== undefined) return { observation: { ok: false, error: refusal }, started: false };
  const parsed = parseSubagentArgs(args);
  if (!parsed.ok) return { observation: { ok: false, error: parsed.error }, started: false };
  const cycleId = subagentCycleId(parentCycleId, spawned + 1);
  const input = subagentInput(parent, cycleId, parsed.task, parsed.context);
  const child = await runChildCycle(input, `sub-agent: ${headCodePoints(parsed.task, 100)}`);
  if ('error' in child) {
    return { observation: { ok: false, error: `sub-agent ${cycleId} did not run: ${child.error}` }, started: true };
  }
  return { observation: subagentObservation(child.result), started: true, result: child.result };
}
