import {
  type CompletedTask,
  MAX_NOTES_CHARS,
  MAX_SECTION_CHARS,
  MAX_UPDATE_CHARS,
  type Scratchpad,
  SECTION_KEY_NAMES,
  type UpdateKey,
  UPDATE_KEYS,
  getSection,
  isSectionKey,
  isUpdateKey,
  setSection,
} from './scratchpad';
import { GROWING_SECTIONS } from './budget';
import { confidenceWarning, itemSizeError, listCountViolation, stateSizeViolation } from './state-caps';
import { codePointLength, tailCodePoints } from '../text';

/** Arguments of an `update_scratchpad` call: keys to values, REPLACE by default, `APPEND: ` or `CLEAR` by prefix. */
export type UpdateArgs = Record<string, unknown>;

export type UpdateOutcome =
  { ok: true; state: Scratchpad; changed: UpdateKey[] } | { ok: false; state: Scratchpad; error: string };

const APPEND_PREFIX = 'APPEND: ';

/** A new scratchpad's placeholders, exactly: anything else (`[draft]`, `(NONE)`) is real content. */
export const BOOTSTRAP_PLACEHOLDERS: readonly string[] = [
  '[To be established through interaction]',
  '[None declared]',
  '(none yet)',
  '(just started)',
  '(none)',
  '(empty)',
];

type Operation =
  { kind: 'clear' } | { kind: 'append'; value: string } | { kind: 'replace'; value: string } | { kind: 'none' };

function operationOf(value: string): Operation {
  if (value.trim() === 'CLEAR') return { kind: 'clear' };
  // `APPEND: ` with nothing after it asks for nothing; it must not blank or pad the section.
  if (value.trim() === APPEND_PREFIX.trim()) return { kind: 'none' };
  if (value.startsWith(APPEND_PREFIX)) {
    const addition = value.slice(APPEND_PREFIX.length);
    return addition.trim() === '' ? { kind: 'none' } : { kind: 'append', value: addition };
  }
  return { kind: 'replace', value };
}

/** Appends a line to a text field; only one of the placeholders is replaced rather than kept. */
export function appendText(existing: string, addition: string): string {
  const current = existing.trim();
  if (current === '' || BOOTSTRAP_PLACEHOLDERS.includes(current)) return addition;
  return `${existing.replace(/\n+$/, '')}\n${addition}`;
}

function applyText(existing: string, operation: Operation, append: (existing: string, addition: string) => string) {
  if (operation.kind === 'none') return existing;
  if (operation.kind === 'clear') return '';
  return operation.kind === 'append' ? append(existing, operation.value) : operation.value;
}

/** Appends to notes, dropping the oldest lines when they would exceed {@link MAX_NOTES_CHARS}. */
export function appendNote(notes: string, line: string): string {
  const marker = '[… earlier notes trimmed]';
  // No separator before the first line, and none kept from notes written before: notes never begin with a blank line.
  const kept = notes.replace(/^\n+/, '');
  let next = kept === '' ? line : `${kept}\n${line}`;
  if (codePointLength(next) <= MAX_NOTES_CHARS) return next;
  const lines = next.split('\n').filter((entry) => entry !== marker);
  while (lines.length > 1 && codePointLength(lines.join('\n')) + marker.length + 1 > MAX_NOTES_CHARS) lines.shift();
  next = `${marker}\n${lines.join('\n')}`;
  return codePointLength(next) <= MAX_NOTES_CHARS ? next : tailCodePoints(next, MAX_NOTES_CHARS);
}

function sizeOf(value: unknown): number {
  return codePointLength(typeof value === 'string' ? value : JSON.stringify(value ?? null));
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isCompletedList(value: unknown): value is CompletedTask[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        typeof item === 'string' ||
        (item !== null &&
          typeof item === 'object' &&
          typeof (item as Record<string, unknown>).task === 'string' &&
          typeof (item as Record<string, unknown>).summary === 'string'),
    )
  );
}

function applyList<T>(existing: T[], value: unknown, extend: boolean, wrap: (text: string) => T): T[] {
  if (typeof value === 'string') {
    const operation = operationOf(value);
    if (operation.kind === 'none') return existing;
    if (operation.kind === 'clear') return [];
    if (operation.kind === 'append') return [...existing, wrap(operation.value)];
    return extend ? [...existing, wrap(operation.value)] : [wrap(operation.value)];
  }
  const items = value as T[];
  return extend ? [...existing, ...items] : [...items];
}

function typeError(key: string, value: unknown): string | null {
  if (isSectionKey(key) || key === 'notes') return typeof value === 'string' ? null : `"${key}" must be a string`;
  if (key === 'current_task') {
    return value === null || typeof value === 'string' ? null : `"current_task" must be a string or null`;
  }
  if (key === 'completed_tasks') {
    return typeof value === 'string' || isCompletedList(value)
      ? null
      : `"completed_tasks" must be a string or a list of strings or {task, summary} objects`;
  }
  return typeof value === 'string' || isStringList(value) ? null : `"${key}" must be a string or a list of strings`;
}

/** Checks an update before it touches anything: known keys, value types and sizes. */
export function validateUpdate(args: unknown): string | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return 'update_scratchpad arguments must be an object of section keys to values';
  }
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (!isUpdateKey(key)) return `unknown key "${key}" (allowed: ${UPDATE_KEYS.join(', ')})`;
    const problem = typeError(key, value) ?? itemSizeError(key, value);
    if (problem) return problem;
    const size = sizeOf(value);
    if (size > MAX_UPDATE_CHARS)
      return `"${key}" is ${size} characters; one update may carry at most ${MAX_UPDATE_CHARS}`;
  }
  return null;
}

/** Applies a validated update (design.md, Update keys: REPLACE, APPEND, CLEAR). */
export function applyUpdate(state: Scratchpad, args: UpdateArgs): Scratchpad {
  let next = state;
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (isSectionKey(key)) {
      next = setSection(next, key, applyText(getSection(next, key), operationOf(value as string), appendText));
    } else if (key === 'notes') {
      next = { ...next, notes: applyText(next.notes, operationOf(value as string), appendNote) };
    } else if (key === 'current_task') {
      const operation: Operation = value === null ? { kind: 'clear' } : operationOf(value as string);
      if (operation.kind === 'clear') next = { ...next, current_task: null };
      else if (operation.kind !== 'none') {
        next = { ...next, current_task: applyText(next.current_task ?? '', operation, appendText) };
      }
    } else if (key === 'goals' || key === 'pending_actions') {
      next = { ...next, [key]: applyList(next[key], value, false, (text) => text) };
    } else if (key === 'completed_tasks') {
      next = { ...next, completed_tasks: applyList<CompletedTask>(next.completed_tasks, value, true, (text) => text) };
    }
  }
  return next;
}

/** A growing section may overshoot its cap by one update; the budget archives its oldest lines right after. */
export const MAX_GROWING_SECTION_CHARS = MAX_SECTION_CHARS + MAX_UPDATE_CHARS + 1;

function capViolation(state: Scratchpad, keys: readonly UpdateKey[]): string | null {
  for (const key of keys) {
    if (isSectionKey(key)) {
      const length = codePointLength(getSection(state, key));
      const cap = GROWING_SECTIONS.includes(key) ? MAX_GROWING_SECTION_CHARS : MAX_SECTION_CHARS;
      if (length > cap) {
        return `"${key}" would grow to ${length} characters (limit ${cap}); REPLACE it with a condensed version`;
      }
    }
    if (key === 'current_task' && codePointLength(state.current_task ?? '') > MAX_SECTION_CHARS) {
      return `"current_task" would grow past ${MAX_SECTION_CHARS} characters`;
    }
  }
  return listCountViolation(state, keys);
}

/** True when every one of the five sections is blank. */
export function isEmptied(state: Scratchpad): boolean {
  return SECTION_KEY_NAMES.every((key) => getSection(state, key).trim() === '');
}

/**
 * Safe apply (design.md, Validation and safe apply): validate, apply, check the result; on any problem the update is
 * rejected whole and the state returned unchanged. A confidence with no level is kept, with a note.
 */
export function safeApply(state: Scratchpad, args: unknown): UpdateOutcome {
  const problem = validateUpdate(args);
  if (problem) return { ok: false, state, error: problem };
  const updates = args as UpdateArgs;
  const keys = Object.keys(updates).filter((key) => updates[key] !== undefined) as UpdateKey[];
  const next = applyUpdate(state, updates);
  const violation = capViolation(next, keys) ?? stateSizeViolation(state, next);
  if (violation) return { ok: false, state, error: violation };
  if (isEmptied(next) && !isEmptied(state)) {
    return { ok: false, state, error: 'the update would empty every section of the scratchpad' };
  }
  const warning = confidenceWarning(updates.self_confidence);
  return { ok: true, state: warning ? { ...next, notes: appendNote(next.notes, warning) } : next, changed: keys };
}
