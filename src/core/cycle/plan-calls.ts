import type { Step } from './dispatch';
import type { Observation } from '../tools/observation';
import type { Decision } from '../tools/approval';
import type { Action } from './parse';

/** Most calls of one response that are looked at; the rest are refused, so a response cannot flood a cycle. */
export const MAX_CALLS_PER_RESPONSE = 10;

/** A call of a response and, when it is not to run, the reason the model is told. */
export interface PlannedCall {
  action: Action;
  refusal?: string;
}

/**
 * The rule for a response with several calls, the same in task cycles and chat turns: every `update_scratchpad`
 * call is applied in order, and so is the first other call (a work tool or `done`); each later other call is
 * refused with a note naming the call that ran, so the model can make it again at its next step. Nothing is
 * dropped unseen. One work tool per response keeps `{{stepN.…}}` numbering one step per iteration.
 */
export function planCalls(calls: readonly Action[]): PlannedCall[] {
  let first: Action | undefined;
  return calls.map((action, index) => {
    if (index >= MAX_CALLS_PER_RESPONSE) {
      return { action, refusal: `not run: at most ${MAX_CALLS_PER_RESPONSE} calls are taken from one response` };
    }
    if (action.tool === 'update_scratchpad') return { action };
    if (!first) {
      first = action;
      return { action };
    }
    const refusal = `not run: one call besides update_scratchpad per response, and ${first.tool} ran; call ${action.tool} again in your next step`;
    return { action, refusal };
  });
}

/** What a cycle did with one call: the step, and the observation the model gets for it, if any. */
export interface Handled {
  step: Step;
  observation?: Observation;
  /** What a person decided on the call (or each `fs_write` of `write_files`) before it ran. */
  approvals?: Decision[];
}

/** Whether a response asked for work beyond updates, so the turn goes on (chat) with its observations. */
export function hasObservations(handled: readonly Handled[]): boolean {
  return handled.some((entry) => entry.observation !== undefined);
}

/** The end of an iteration as the Web UI and timeline label it, e.g. `update, tool echo, refused fs_write`. */
export function stepLabel(handled: readonly Handled[], fallback: string): string {
  if (handled.length === 0) return fallback;
  return handled
    .map(({ step }) =>
      step.kind === 'update' || step.kind === 'done' ? step.kind : `${step.kind} ${step.action.tool}`,
    )
    .join(', ');
}
