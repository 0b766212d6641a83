import type { Scratchpad, UpdateKey } from './scratchpad';
import { codePointLength, utf8Length } from '../text';

/** Most goals the state holds; an update that would hold more is rejected. */
export const MAX_GOALS = 50;
/** Most pending actions the state holds. */
export const MAX_PENDING_ACTIONS = 100;
/** Largest one goal, pending action, or completed task's task or summary may be, in characters. */
export const MAX_ITEM_CHARS = 1000;
/** Completed tasks kept in the state; beyond this the budget archives the oldest behind a pointer. */
export const MAX_COMPLETED_TASKS = 50;
/** Completed tasks left in place after an archive, the newest ones. */
export const COMPLETED_TASKS_KEPT = 25;
/** An update may not leave more completed tasks than this; the budget brings them back to the kept count. */
export const MAX_COMPLETED_TASKS_PER_UPDATE = 2 * MAX_COMPLETED_TASKS;
/**
 * Largest the whole state may be as UTF-8 JSON. The state travels in activity inputs, query results and
 * continue-as-new input, each bound by Temporal's 2 MB payload limit; this leaves room for the prompt around it.
 */
export const MAX_STATE_BYTES = 256 * 1024;

const LIST_LIMITS: Partial<Record<UpdateKey, number>> = {
  goals: MAX_GOALS,
  pending_actions: MAX_PENDING_ACTIONS,
  completed_tasks: MAX_COMPLETED_TASKS_PER_UPDATE,
};

function itemTexts(value: unknown): string[] {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.flatMap((item) => {
    if (typeof item === 'string') return [item.replace(/^APPEND: /, '')];
    const { task, summary } = item as { task: string; summary: string };
    return [task, summary];
  });
}

/** An item of a list key (goals, pending_actions, completed_tasks) longer than {@link MAX_ITEM_CHARS}. */
export function itemSizeError(key: string, value: unknown): string | null {
  if (!(key in LIST_LIMITS)) return null;
  for (const text of itemTexts(value)) {
    const size = codePointLength(text);
    if (size > MAX_ITEM_CHARS) {
      return `an item of "${key}" is ${size} characters; one item may be at most ${MAX_ITEM_CHARS}: keep it short`;
    }
  }
  return null;
}

/** A list that the update would grow past its cap. */
export function listCountViolation(state: Scratchpad, keys: readonly UpdateKey[]): string | null {
  for (const key of keys) {
    const limit = LIST_LIMITS[key];
    const count = (state[key as keyof Scratchpad] as unknown[] | undefined)?.length ?? 0;
    if (limit !== undefined && count > limit) {
      return `"${key}" would hold ${count} items (limit ${limit}); REPLACE it with a shorter list`;
    }
  }
  return null;
}

/** Bytes of the state as UTF-8 JSON, what a Temporal payload carries. */
export function stateBytes(state: Scratchpad): number {
  return utf8Length(JSON.stringify(state));
}

/** The size `after` would grow to past {@link MAX_STATE_BYTES}, or null: shrinking is always allowed. */
function grownPastCap(before: Scratchpad, after: Scratchpad): number | null {
  const json = JSON.stringify(after);
  // A UTF-16 unit is at most three UTF-8 bytes: most states are decided without counting bytes.
  if (json.length * 3 <= MAX_STATE_BYTES) return null;
  const size = utf8Length(json);
  return size <= MAX_STATE_BYTES || size <= stateBytes(before) ? null : size;
}

const growth = (size: number) => `the scratchpad would grow to ${size} bytes (limit ${MAX_STATE_BYTES})`;

/** An update that would grow the whole state past {@link MAX_STATE_BYTES}. */
export function stateSizeViolation(before: Scratchpad, after: Scratchpad): string | null {
  const size = grownPastCap(before, after);
  return size === null ? null : `${growth(size)}; condense or CLEAR something first`;
}

/** The confidence check: a `self_confidence` naming none of HIGH, MEDIUM, LOW is kept, with this note. */
export function confidenceWarning(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === 'CLEAR' || value.trim() === 'APPEND:') return null;
  if (/HIGH|MEDIUM|LOW/.test(value.toUpperCase())) return null;
  return '[CONFIDENCE] self_confidence names none of HIGH, MEDIUM, LOW; kept as written';
}

/**
 * Why tasks or goals from a user (enqueue, a run with tasks, a wake) may not join the state: the size cap every
 * model update meets, so no path grows the state past it. The list caps are the model's: a user may queue more.
 */
export function queueViolation(before: Scratchpad, after: Scratchpad): string | null {
  const size = grownPastCap(before, after);
  return size === null ? null : `${growth(size)}: let the agent work through its queue, or queue shorter tasks`;
}

/** Why an imported state may not be adopted: it must fit the size cap the agent's own states keep. */
export function importViolation(state: Scratchpad): string | null {
  const size = stateBytes(state);
  return size > MAX_STATE_BYTES ? `the import is ${size} bytes as JSON (limit ${MAX_STATE_BYTES})` : null;
}
