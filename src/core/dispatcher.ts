import { type Observation, toolNote } from './observation';
import type { Action, ParsedAction } from './parse-action';
import type { Scratchpad } from './scratchpad';
import { appendNote, safeApply } from './update';
import { MAX_ITEM_CHARS } from './state-caps';
import { codePointLength, headCodePoints } from './text';

function cutItem(text: string): string {
  return codePointLength(text) <= MAX_ITEM_CHARS ? text : `${headCodePoints(text, MAX_ITEM_CHARS - 1)}…`;
}

/** What the dispatcher decided for one model response (seed 000's three branches plus parse failure). */
export type Dispatch =
  | { kind: 'tool'; state: Scratchpad; action: Action }
  | { kind: 'update'; state: Scratchpad; action: Action; error?: string }
  | { kind: 'done'; state: Scratchpad; action: Action; summary: string }
  | { kind: 'parse_error'; state: Scratchpad; error: string }
  | { kind: 'unknown_tool'; state: Scratchpad; action: Action; error: string };

/** Seed 000's `done`: the current task moves to completed_tasks, the next pending action becomes current. */
export function completeTask(state: Scratchpad, summary: string): Scratchpad {
  // Cut, not refused: `done` must always end the task; the item cap keeps completed_tasks bounded.
  const item = { task: cutItem(state.current_task ?? ''), summary: cutItem(summary) };
  const completed = state.current_task ? [...state.completed_tasks, item] : state.completed_tasks;
  const [next, ...rest] = state.pending_actions;
  return {
    ...state,
    completed_tasks: completed,
    current_task: next ?? null,
    pending_actions: next === undefined ? state.pending_actions : rest,
    notes: appendNote(state.notes, `[COMPLETED] ${summary}`),
  };
}

/**
 * Applies one parsed model response to the state. Work tools are not run here: the result
 * asks the caller to run the tool and then call {@link recordToolResult}.
 */
export function dispatch(state: Scratchpad, parsed: ParsedAction, workTools: readonly string[]): Dispatch {
  if (!parsed.ok) {
    return {
      kind: 'parse_error',
      state: { ...state, notes: appendNote(state.notes, `[PARSE ERROR] ${parsed.error}`) },
      error: parsed.error,
    };
  }
  const { action } = parsed;
  if (action.tool === 'update_scratchpad') {
    const outcome = safeApply(state, action.args);
    if (outcome.ok) return { kind: 'update', state: outcome.state, action };
    return {
      kind: 'update',
      state: { ...state, notes: appendNote(state.notes, `[UPDATE REJECTED] ${outcome.error}`) },
      action,
      error: outcome.error,
    };
  }
  if (action.tool === 'done') {
    const summary = typeof action.args.summary === 'string' ? action.args.summary : '(no summary)';
    return { kind: 'done', state: completeTask(state, summary), action, summary };
  }
  if (workTools.includes(action.tool)) return { kind: 'tool', state, action };
  const error = `unknown tool "${action.tool}" (available: ${[...workTools, 'update_scratchpad', 'done'].join(', ')})`;
  const observation: Observation = { ok: false, error };
  return {
    kind: 'unknown_tool',
    state: { ...state, notes: appendNote(state.notes, toolNote(action.tool, action.args, observation)) },
    action,
    error,
  };
}

/** Seed 000's tool branch: the result is appended to notes; the task queue does not change. */
export function recordToolResult(state: Scratchpad, action: Action, observation: Observation): Scratchpad {
  return { ...state, notes: appendNote(state.notes, toolNote(action.tool, action.args, observation)) };
}
