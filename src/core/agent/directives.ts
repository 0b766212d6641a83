import { DIRECTIVES_BUDGET_BYTES } from '../cycle/input';
import { newestWithin } from '../payload';
import { type DirectiveRecord, keepLast } from './agent';

/** Directives the agent remembers having shown, oldest dropped first. */
export const KEPT_DIRECTIVES = 100;

/** What the agent knows about directives around one cycle. */
export interface DirectiveBook {
  /** Waiting for the next cycle, oldest first. */
  held: string[];
  /** Shown to some cycle, with the cycle that first showed each. */
  log: DirectiveRecord[];
}

/**
 * After a cycle: directives the cycle showed the model go to the log under its id; any it was given (held ones
 * handed over at its start, or signals forwarded while it ran) but never showed are held again, ahead of newer
 * ones, so a cycle that failed before its first iteration loses none. The log keeps its newest within the budget.
 */
export function reconcileDirectives(
  book: DirectiveBook,
  cycle: { cycleId: string; given: readonly string[]; shown: readonly string[] },
): DirectiveBook {
  const unseen = cycle.given.filter((text) => !cycle.shown.includes(text));
  const log = [...book.log, ...cycle.shown.map((text) => ({ text, cycleId: cycle.cycleId }))];
  return {
    held: [...unseen, ...book.held],
    log: newestWithin(keepLast(log, KEPT_DIRECTIVES), DIRECTIVES_BUDGET_BYTES),
  };
}
