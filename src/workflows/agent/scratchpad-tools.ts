import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import { applyUpdate, doneStep } from '../../core/cycle/dispatch';
import type { CycleRun } from '../cycle/cycle-run';
import type { CycleFeature } from '../cycle/tool-handler';
import { telemetryHook } from '../../common/telemetry-hook';

/** `update_scratchpad`: the merge's safe apply (design.md, The scratchpad), then the budget. Rejections are noted. */
async function updateScratchpad(run: CycleRun, action: Action): Promise<Handled> {
  const before = run.state;
  const step = applyUpdate(run.state, action);
  run.state = step.state;
  const archivedChars = await run.enforceBudget();
  const rejected = 'error' in step ? step.error : undefined;
  const event = { agentId: run.input.agentId, before, after: run.state, args: action.args, rejected, archivedChars };
  telemetryHook()?.memoryUpdated(event);
  return { step };
}

/** `done`: the current task moves to completed tasks and the next pending action becomes current. */
async function done(run: CycleRun, action: Action): Promise<Handled> {
  const step = doneStep(run.state, action);
  run.state = step.state;
  await run.archiveCompletedTasks();
  return { step };
}

/** The scratchpad's own verbs, which every kind of cycle offers where its phase does. */
export function scratchpadTools(): CycleFeature {
  return { handlers: { update_scratchpad: updateScratchpad, done } };
}
