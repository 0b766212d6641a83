import { patched } from '@temporalio/workflow';
import { type Offered, dispatchAction, recordToolResult, refuse } from '../../core/cycle/dispatch';
import type { Action } from '../../core/cycle/parse';
import { type Handled, planCalls } from '../../core/cycle/plan-calls';
import type { CycleRun } from './cycle-run';

/** Marks histories whose responses with several calls follow the rule of `planCalls`. */
export const SEVERAL_CALLS_PATCH = 'several-calls-per-response';

/**
 * The calls to carry out. Before the patch a task cycle took only a response's first call, and a chat turn its
 * updates (when offered) then its first other call; a history made then must replay with those, so the patch
 * marker goes in only when the two readings differ.
 */
export function callsToCarryOut(calls: Action[], before: Action[]): Action[] {
  const same = before.length === calls.length && before.every((call, index) => call === calls[index]);
  return same || patched(SEVERAL_CALLS_PATCH) ? calls : before;
}

/** Before the patch: a task cycle's first call. */
export function firstCallOnly(calls: Action[]): Action[] {
  return calls.slice(0, 1);
}

/** Before the patch: a chat response's updates when offered, then its first other call. */
export function updatesThenFirstCall(calls: Action[], updateOffered: boolean): Action[] {
  const updates = updateOffered ? calls.filter((call) => call.tool === 'update_scratchpad') : [];
  const work = calls.find((call) => call.tool !== 'update_scratchpad');
  return [...updates, ...(work ? [work] : [])];
}

/**
 * Carries out a response's calls in order under `planCalls`: updates and `done` change the state, the one work
 * tool runs through `CycleRun.runTool`, refused and unknown calls get an error observation. With `notes`, every
 * observation also goes to the scratchpad's notes (seed 000); a chat turn shows them within the turn instead.
 */
export async function carryOut(
  run: CycleRun,
  calls: readonly Action[],
  iteration: number,
  options: { offered: Offered; notes: boolean },
): Promise<Handled[]> {
  const handled: Handled[] = [];
  for (const { action, refusal } of planCalls(calls)) {
    const step = refusal ? refuse(run.state, action, refusal) : dispatchAction(run.state, action, options.offered);
    run.state = step.state;
    let observation = step.kind === 'unknown_tool' || step.kind === 'refused' ? step.observation : undefined;
    if (step.kind === 'tool') observation = await run.runTool(action, iteration);
    if (step.kind === 'update') await run.enforceBudget();
    if (step.kind === 'done') await run.archiveCompletedTasks();
    if (observation && options.notes) run.state = recordToolResult(run.state, action, observation);
    handled.push({ step, ...(observation ? { observation } : {}) });
  }
  return handled;
}
