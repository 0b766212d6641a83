import type { ParsedCycleInput } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import { parseSubagentArgs, subagentInput, subagentObservation, subagentRefusal } from '../../core/agent/subagent';
import { SPAWN_SUBAGENT } from '../../core/tools/catalogue';
import { headCodePoints } from '../../core/text';
import { subagentCycleId } from '../../common/ids';
import type { CycleRun } from '../cycle/cycle-run';
import { runCycleChild } from '../cycle/start-cycle-child';
import type { CycleFeature } from '../cycle/tool-handler';

/**
 * `spawn_subagent` (design.md, Chat turns: sub-agents) as a child cycle with a fresh scratchpad. A refusal or a
 * child that could not run is an observation, so the parent always goes on; the child's usage is the parent's.
 */
export function subagentTool(): CycleFeature {
  let spawned = 0;
  const spawn = async (run: CycleRun, action: Action): Promise<Handled> => {
    const observation = await spawnSubagent(run, action.args, spawned, () => spawned++);
    return { step: { kind: 'tool', state: run.state, action }, observation };
  };
  return { handlers: { [SPAWN_SUBAGENT]: spawn } };
}

async function spawnSubagent(
  run: CycleRun,
  args: unknown,
  spawned: number,
  countSpawn: () => void,
): Promise<Observation> {
  const parent: ParsedCycleInput = run.input;
  const refusal = subagentRefusal(parent.subagentDepth, spawned);
  if (refusal !== undefined) return { ok: false, error: refusal };
  const parsed = parseSubagentArgs(args);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  countSpawn();
  const cycleId = subagentCycleId(run.cycleId, spawned + 1);
  const input = subagentInput(parent, cycleId, parsed.task, parsed.context);
  const child = await runCycleChild(input, `sub-agent: ${headCodePoints(parsed.task, 100)}`);
  if ('error' in child) return { ok: false, error: `sub-agent ${cycleId} did not run: ${child.error}` };
  run.addChildUsage(child.result);
  // What a sub-agent's calls may or may not have done is the agent's to see, as its own calls'.
  run.unknownOutcomes.push(...(child.result.unknownOutcomes ?? []));
  return subagentObservation(child.result);
}
