import type { Action } from '../../core/cycle/parse';
import { approvedObservation } from '../../core/tools/approval-policy';
import type { Decision } from '../../core/tools/approval';
import { idempotencyKey, unknownOutcomeOf } from '../../core/tools/idempotency';
import { type Observation, isStoredObservation } from '../../core/tools/observation';
import type { CycleRun } from './cycle-run';

/**
 * One call of a cycle in the `runTool` activity (CycleRun.runTool): the features' refusals, the approval a call's
 * policy asks for, and an idempotency key made here, in workflow code, so that every attempt of the call carries the
 * same one. A call whose outcome is unknown (its only attempt died without a result) is recorded; when it waited for
 * a person to run, a person decides again whether it runs once more, with the same key.
 */
export async function runCycleToolCall(run: CycleRun, proposed: Action, step: number): Promise<Observation> {
  const refusal = run.refusalOf(proposed);
  if (refusal !== undefined) return { ok: false, error: refusal };
  let approval = await run.approvals.request(proposed, step);
  if (!approval.run) return approval.observation;
  let action = proposed;
  let key: string | undefined;
  let rerun: string | undefined;
  for (;;) {
    if (approval.args !== action.args) {
      action = { ...action, args: approval.args };
      // Edited arguments meet the features' caps too (a stage's path cap).
      const edited = run.refusalOf(action);
      if (edited !== undefined) return { ok: false, error: edited };
      // Edited after an unknown outcome, it is another call, with a key of its own.
      key = undefined;
    }
    key ??= nextKey(run, step);
    const observation = await runOnce(run, action, step, key, approval.decision);
    const unknown = unknownOutcomeOf(observation);
    if (unknown === undefined) return rerun ? { ...observation, rerun } : observation;
    if (approval.decision === undefined) return recordUnknown(run, action, step, observation);
    const again = await run.approvals.request(action, step, `outcome unknown (key ${key}): run it again?`);
    if (!again.run) {
      const error = `${observation.error} A person was asked whether to run it again: ${again.observation.error}`;
      return recordUnknown(run, action, step, { ...observation, error });
    }
    rerun = `run again after an unknown outcome, as ${again.decision?.by ?? 'a person'} approved`;
    approval = again;
  }
}

/** The `n`-th call at `step` gets the `n`-th key: the order of calls is the workflow's, the same in every replay. */
function nextKey(run: CycleRun, step: number): string {
  const n = (run.callsAt.get(step) ?? 0) + 1;
  run.callsAt.set(step, n);
  return idempotencyKey(run.cycleId, step, n);
}

async function runOnce(
  run: CycleRun,
  action: Action,
  step: number,
  key: string,
  decision: Decision | undefined,
): Promise<Observation> {
  const { agentId } = run.input;
  const call = { ...run.callContext(), cycleId: run.cycleId, agentId, step, name: action.tool, args: action.args };
  run.stream.tool('start', action.tool, action.args);
  const observation = await run.tools.run({ ...call, idempotencyKey: key }, decision !== undefined);
  run.stream.tool('end', action.tool, undefined, observation.ok);
  if (isStoredObservation(observation)) run.hasStoredObservations = true;
  for (const feature of run.features) feature.observe?.(action, observation);
  return decision ? approvedObservation(observation, decision) : observation;
}

function recordUnknown(run: CycleRun, action: Action, step: number, observation: Observation): Observation {
  const unknown = unknownOutcomeOf(observation);
  if (unknown) run.unknownOutcomes.push({ cycleId: run.cycleId, tool: action.tool, iteration: step, ...unknown });
  return observation;
}
