import { ParentClosePolicy, executeChild, isCancellation } from '@temporalio/workflow';
import type { CycleResult, ParsedCycleInput } from '../core/cycle';
import type { Observation } from '../core/observation';
import { parseSubagentArgs, subagentInput, subagentObservation, subagentRefusal } from '../core/subagent';
import { headCodePoints } from '../core/text';
import { failureMessage } from '../common/failure';
import { subagentCycleId } from '../common/ids';
import { agentIdKey } from '../common/search-attributes';
import type { AgentCycleWorkflow } from '../common/workflow-types';

/** What one `spawn_subagent` call gave: the observation, and the child's result when a child ran. */
export interface SpawnOutcome {
  observation: Observation;
  /** A child was started (or tried): it used up one of the cycle's spawns and its id. */
  started: boolean;
  result?: CycleResult;
}

/**
 * Seed 001's `spawn_subagent` as a child `agentCycle` (by name: this module is part of the cycle itself). A refusal
 * or a child that could not run is an observation, so the parent cycle always goes on.
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
  try {
    const result = await executeChild<AgentCycleWorkflow>('agentCycle', {
      workflowId: cycleId,
      args: [subagentInput(parent, cycleId, parsed.task, parsed.context)],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      typedSearchAttributes: [{ key: agentIdKey, value: parent.agentId }],
      staticSummary: `sub-agent: ${headCodePoints(parsed.task, 100)}`,
    });
    return { observation: subagentObservation(result), started: true, result };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const observation = { ok: false, error: `sub-agent ${cycleId} did not run: ${failureMessage(error)}` };
    return { observation, started: true };
  }
}
