import { codePointLength, headCodePoints } from '../text';
import { type Scratchpad, SECTION_KEY_NAMES, TASK_KEYS, getSection } from './scratchpad';

export interface Change {
  key: string;
  before: unknown;
  after: unknown;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keys whose values differ between two scratchpads, task keys first, then sections. */
export function diffScratchpads(before: Scratchpad, after: Scratchpad): Change[] {
  const changes: Change[] = [];
  for (const key of [...TASK_KEYS, 'last_updated'] as const) {
    if (!same(before[key], after[key])) changes.push({ key, before: before[key], after: after[key] });
  }
  for (const key of SECTION_KEY_NAMES) {
    const a = getSection(before, key);
    const b = getSection(after, key);
    if (a !== b) changes.push({ key, before: a, after: b });
  }
  return changes;
}

function short(value: unknown, limit: number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\n/g, '⏎');
  return codePointLength(flat) > limit ? `${headCodePoints(flat, limit - 1)}…` : flat;
}

/** One line per change: `key: before → after` (notes show only what was added). */
export function describeChanges(changes: readonly Change[], limit = 100): string[] {
  return changes.map((change) => {
    if (change.key === 'notes' && typeof change.before === 'string' && typeof change.after === 'string') {
      const added = change.after.startsWith(change.before) ? change.after.slice(change.before.length) : change.after;
      return `notes: +${added.split('\n').filter(Boolean).length} line(s)`;
    }
    return `${change.key}: ${short(change.before, limit / 2)} → ${short(change.after, limit / 2)}`;
  });
}

/** Characters a value takes as the memory shows it. */
function size(value: unknown): number {
  return typeof value === 'string' ? codePointLength(value) : codePointLength(JSON.stringify(value ?? null));
}

/**
 * What a cycle did to the memory, on one line for a list of cycles: each changed part with its growth in characters
 * (`understanding_known +42, notes +80`), or `no change`. The stamp is not memory.
 */
export function memoryChangeLine(before: Scratchpad, after: Scratchpad): string {
  const parts = diffScratchpads(before, after)
    .filter((change) => change.key !== 'last_updated')
    .map((change) => {
      const delta = size(change.after) - size(change.before);
      return `${change.key} ${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta)}`;
    });
  return parts.length === 0 ? 'no change' : parts.join(', ');
}
