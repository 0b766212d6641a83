import { log } from '@temporalio/workflow';
import { type Scratchpad, enqueueTasks } from '../../core/scratchpad/scratchpad';
import { queueViolation } from '../../core/scratchpad/state-caps';

/** `state` with the tasks of a `wake` signal queued: those not queued already, and only if they fit the caps. */
export function wokenState(state: Scratchpad, tasks: readonly string[]): Scratchpad {
  // A schedule repeats its tasks every tick: one already queued is not queued again.
  const queued = [state.current_task, ...state.pending_actions];
  const fresh = tasks.filter((task) => !queued.includes(task));
  if (fresh.length === 0) return state;
  const after = enqueueTasks(state, fresh);
  const refusal = queueViolation(state, after);
  if (!refusal) return after;
  // A signal has no caller to answer: tasks that would pass the caps are dropped and logged, the rest runs.
  log.warn('dropped the tasks of a wake signal', { error: refusal, tasks: fresh.length });
  return state;
}
