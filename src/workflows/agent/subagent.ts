import type { CycleResult } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import {
  type SubagentCycleInput,
  SubagentCycleInputSchema,
  parseSubagentArgs,
  subagentInput,
  subagentObservation,
  subagentRefusal,
} from '../../core/agent/subagent';
import { SPAWN_SUBAGENT } from '../../core/tools/catalogue';
import { headCodePoints } from '../../core/text';
import { subagentCycleId } from '../../common/ids';
import { CycleError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import type { CycleRun } from '../cycle/cycle-run';
import { ChildCycle } from '../cycle/child-cycle';
import { runCycle } from '../cycle/run-cycle';
import type { CycleFeature } from '../cycle/tool-handler';
import { scratchpadTools } from './scratchpad-tools';

/** Where the spawning cycle sits: its depth, and workflow-side tools of its own a sub-agent is not given. */
export interface SubagentOptions {
  depth: number;
  withhold?: readonly string[];
}

/**
 * `spawn_subagent` (design.md, Chat turns: sub-agents) as a `subagentCycle` child with a fresh scratchpad. A refusal
 * or a child that could not run is an observation, so the parent always goes on; the child's usage is the parent's.
 */
export function subagentTool(options: SubagentOptions): CycleFeature {
  let spawned = 0;
  const spawn = async (run: CycleRun, action: Action): Promise<Handled> => {
    const observation = await spawnSubagent(run, options, action.args, spawned, () => spawned++);
    return { step: { kind: 'tool', state: run.state, action }, observation };
  };
  return { handlers: { [SPAWN_SUBAGENT]: spawn } };
}

async function spawnSubagent(
  run: CycleRun,
  options: SubagentOptions,
  args: unknown,
  spawned: number,
  countSpawn: () => void,
): Promise<Observation> {
  const refusal = subagentRefusal(options.depth, spawned);
  if (refusal !== undefined) return { ok: false, error: refusal };
  const parsed = parseSubagentArgs(args);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  countSpawn();
  const cycleId = subagentCycleId(run.cycleId, spawned + 1);
  const callContext = run.callContext();
  const inherited = {
    ...(Object.keys(callContext).length > 0 && { callContext }),
    ...(run.waitContext !== undefined && { waitContext: run.waitContext }),
  };
  const from = { parent: run.input, ...options, inherited };
  const child = new ChildCycle<SubagentCycleInput>({
    workflowType: 'subagentCycle',
    input: subagentInput(from, cycleId, parsed.task, parsed.context),
    summary: `sub-agent: ${headCodePoints(parsed.task, 100)}`,
    description: { name: 'sub-agent cycle' },
  });
  const outcome = await child.run();
  if (!('result' in outcome)) {
    const why = 'error' in outcome ? outcome.error : 'cancelled';
    return { ok: false, error: `sub-agent ${cycleId} did not run: ${why}` };
  }
  run.addChildUsage(outcome.result);
  // What a sub-agent's calls may or may not have done is the agent's to see, as its own calls'.
  run.unknownOutcomes.push(...(outcome.result.unknownOutcomes ?? []));
  return subagentObservation(outcome.result);
}

/**
 * A sub-agent's cycle: a task cycle with a fresh scratchpad, the tools and limits of whoever spawned it, one level
 * deeper, and the call context and wait context that cycle passed down.
 */
export async function subagentCycle(rawInput: SubagentCycleInput): Promise<CycleResult> {
  const input = parseWorkflowInput(SubagentCycleInputSchema(), rawInput, CycleError.BadInput, 'sub-agent cycle input');
  const { callContext, waitContext } = input.inherited ?? {};
  const inherited: CycleFeature = { ...(callContext && { callContext }), ...(waitContext && { waitContext }) };
  return runCycle(input, [scratchpadTools(), subagentTool({ depth: input.depth }), inherited]);
}
