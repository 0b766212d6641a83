import { type Observation, toolNote } from '../tools/observation';
import type { Action, ParsedAction } from './parse';
import type { Scratchpad } from '../scratchpad/scratchpad';
import { appendNote, safeApply } from '../scratchpad/update';
import { MAX_ITEM_CHARS } from '../scratchpad/state-caps';
import { codePointLength, headCodePoints } from '../text';

function cutItem(text: string): string {
  return codePointLength(text) <= MAX_ITEM_CHARS ? text : `${headCodePoints(text, MAX_ITEM_CHARS - 1)}…`;
}

/** The calls a phase offers the model besides its work tools. */
export interface Offered {
  work: readonly string[];
  update: boolean;
  done: boolean;
}

/**
 * What one call of a model response does (work tool, update or `done`, plus calls that are not run). Work tools
 * are not run here: the caller runs `tool` steps; `unknown_tool` and `refused` carry the observation the model
 * gets instead.
 */
export type Step =
  | { kind: 'tool'; state: Scratchpad; action: Action }
  | { kind: 'update'; state: Scratchpad; action: Action; error?: string }
  | { kind: 'done'; state: Scratchpad; action: Action; summary: string }
  | { kind: 'unknown_tool'; state: Scratchpad; action: Action; error: string; observation: Observation }
  | { kind: 'refused'; state: Scratchpad; action: Action; error: string; observation: Observation };

/** {@link Step} or a response that could not be read. */
export type Dispatch = Step | { kind: 'parse_error'; state: Scratchpad; error: string };

/** `done`: the current task moves to completed_tasks, the next pending action becomes current. */
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

/** Safe apply: a rejected update changes nothing but an `[UPDATE REJECTED]` note. */
export function applyUpdate(state: Scratchpad, action: Action): Step {
  const outcome = safeApply(state, action.args);
  if (outcome.ok) return { kind: 'update', state: outcome.state, action };
  const rejected = { ...state, notes: appendNote(state.notes, `[UPDATE REJECTED] ${outcome.error}`) };
  return { kind: 'update', state: rejected, action, error: outcome.error };
}

/** `done`: the current task completes with the call's summary. */
export function doneStep(state: Scratchpad, action: Action): Extract<Step, { kind: 'done' }> {
  const summary = typeof action.args.summary === 'string' ? action.args.summary : '(no summary)';
  return { kind: 'done', state: completeTask(state, summary), action, summary };
}

/** A call that is not run, with the reason the model sees as its observation. */
export function refuse(state: Scratchpad, action: Action, reason: string): Extract<Step, { kind: 'refused' }> {
  return { kind: 'refused', state, action, error: reason, observation: { ok: false, error: reason } };
}

/** Whether a phase offers the tool: one of its work tools, or a verb it offers. */
export function isOffered(tool: string, offered: Offered): boolean {
  return (
    (tool === 'update_scratchpad' && offered.update) || (tool === 'done' && offered.done) || offered.work.includes(tool)
  );
}

/** A call to a tool the phase does not offer, with the observation naming what it does offer. */
export function unknownTool(
  state: Scratchpad,
  action: Action,
  offered: Offered,
): Extract<Step, { kind: 'unknown_tool' }> {
  const available = [
    ...offered.work,
    ...(offered.update ? ['update_scratchpad'] : []),
    ...(offered.done ? ['done'] : []),
  ];
  const error =
    action.tool === 'update_scratchpad'
      ? 'update_scratchpad is not offered here: the scratchpad is updated after the reply'
      : `unknown tool "${action.tool}" (available: ${available.join(', ')})`;
  return { kind: 'unknown_tool', state, action, error, observation: { ok: false, error } };
}

/** Applies one call to the state: an update or `done` at once, a work tool for the caller to run. */
export function dispatchAction(state: Scratchpad, action: Action, offered: Offered): Step {
  if (action.tool === 'update_scratchpad' && offered.update) return applyUpdate(state, action);
  if (action.tool === 'done' && offered.done) return doneStep(state, action);
  if (offered.work.includes(action.tool)) return { kind: 'tool', state, action };
  return unknownTool(state, action, offered);
}

/** A work tool's result is appended to notes; the task queue does not change. */
export function recordToolResult(state: Scratchpad, action: Action, observation: Observation): Scratchpad {
  return { ...state, notes: appendNote(state.notes, toolNote(action.tool, action.args, observation)) };
}

/**
 * The dispatch of a single parsed call in a task cycle: a parse failure is noted as `[PARSE ERROR]`, an
 * unknown tool as its error observation.
 */
export function dispatch(state: Scratchpad, parsed: ParsedAction, workTools: readonly string[]): Dispatch {
  if (!parsed.ok) {
    const noted = { ...state, notes: appendNote(state.notes, `[PARSE ERROR] ${parsed.error}`) };
    return { kind: 'parse_error', state: noted, error: parsed.error };
  }
  const step = dispatchAction(state, parsed.action, { work: workTools, update: true, done: true });
  if (step.kind !== 'unknown_tool') return step;
  return { ...step, state: recordToolResult(state, step.action, step.observation) };
}
