import { completedLine, renderMarkdown } from './render';
import {
  type CompletedTask,
  MAX_SECTION_CHARS,
  type Scratchpad,
  type SectionKey,
  getSection,
  setSection,
} from './scratchpad';
import { COMPLETED_TASKS_KEPT, MAX_COMPLETED_TASKS } from './state-caps';

/** Default ceiling on the rendered scratchpad, in characters (bench/cost: 6,000 meets its goals, 8,000 does not). */
export const DEFAULT_BUDGET_CHARS = 6000;

/**
 * What a cut of Known frees beyond what is needed. Known sits in the prompt's cached prefix and a cut rewrites it, so
 * it is cut in chunks: the turns between two cuts only append to it, and read the rest from the cache.
 */
export const KNOWN_CUT_SLACK = MAX_SECTION_CHARS / 4;

export type ArchivableKey = SectionKey | 'notes';

/** Where older content goes first when the scratchpad outgrows its budget (design.md, Budget and archiving). */
export const ARCHIVE_ORDER: readonly ArchivableKey[] = ['workspace', 'trajectory_path', 'understanding_known', 'notes'];

/** Sections that grow by appending; an update may push them past the section cap, and the budget cuts them back. */
export const GROWING_SECTIONS: readonly SectionKey[] = ['workspace', 'trajectory_path', 'understanding_known'];

/** One section's oldest content to move out of the scratchpad. */
export interface ArchiveCut {
  section: ArchivableKey;
  /** Oldest lines, moved to the observation store. */
  removed: string;
  /** Newest lines, kept in place. */
  kept: string;
}

export function renderedSize(state: Scratchpad): number {
  return renderMarkdown(state).length;
}

const POINTER_ALLOWANCE = 120;

function read(state: Scratchpad, key: ArchivableKey): string {
  return key === 'notes' ? state.notes : getSection(state, key);
}

function write(state: Scratchpad, key: ArchivableKey, value: string): Scratchpad {
  return key === 'notes' ? { ...state, notes: value } : setSection(state, key, value);
}

/** Cuts the oldest whole lines of `text` until at least `need` characters are freed; the newest line stays. */
function cutOldest(text: string, need: number): { removed: string; kept: string } | undefined {
  const lines = text.split('\n');
  let cut = 0;
  let freed = 0;
  while (cut < lines.length - 1 && freed < need) {
    freed += (lines[cut] as string).length + 1;
    cut++;
  }
  const removed = lines.slice(0, cut).join('\n');
  if (removed.trim() === '') return undefined;
  return { removed, kept: lines.slice(cut).join('\n') };
}

/**
 * Plans the cut of oldest lines that brings the rendered scratchpad within `budget` and every growing
 * section within the section cap: WORKSPACE first, then Path, then Known (with `chunked`, {@link KNOWN_CUT_SLACK}
 * more), then notes.
 */
export function planArchive(state: Scratchpad, budget: number, chunked = false): ArchiveCut[] {
  let excess = renderedSize(state) - budget;
  const cuts: ArchiveCut[] = [];
  for (const section of ARCHIVE_ORDER) {
    const text = read(state, section);
    const overCap = section === 'notes' ? 0 : text.length + POINTER_ALLOWANCE - MAX_SECTION_CHARS;
    const need = Math.max(excess > 0 ? excess + POINTER_ALLOWANCE : 0, overCap);
    if (need <= 0) continue;
    const cut = cutOldest(text, chunked && section === 'understanding_known' ? need + KNOWN_CUT_SLACK : need);
    if (!cut) continue;
    cuts.push({ section, ...cut });
    excess -= cut.removed.length + 1 - POINTER_ALLOWANCE;
  }
  return cuts;
}

/** Whether keeping `state` within `budget` and the section caps cuts Known. */
export function cutsKnown(state: Scratchpad, budget: number): boolean {
  return planArchive(state, budget).some((cut) => cut.section === 'understanding_known');
}

/** The line left where archived content was, telling the model how to read it back. */
export function archivePointer(id: string, chars: number): string {
  return `[ARCHIVED ${chars} older chars: scratchpad_read(scratchpad_id="${id}")]`;
}

/** Whether a completed task is the pointer to older ones. */
export function isArchivePointer(item: CompletedTask): item is string {
  return typeof item === 'string' && item.startsWith('[ARCHIVED ');
}

/** Whether any section holds a pointer to archived content, so the model needs `scratchpad_read`. */
export function hasArchivePointer(state: Scratchpad): boolean {
  return (
    ARCHIVE_ORDER.some((key) => read(state, key).includes('[ARCHIVED ')) || state.completed_tasks.some(isArchivePointer)
  );
}

/** The oldest completed tasks to move out, as their rendered lines, and the newest to keep. */
export interface CompletedArchiveCut {
  removed: string;
  count: number;
  kept: CompletedTask[];
}

/** Beyond {@link MAX_COMPLETED_TASKS}, all but the newest {@link COMPLETED_TASKS_KEPT} go to the archive. */
export function planCompletedArchive(state: Scratchpad): CompletedArchiveCut | undefined {
  const tasks = state.completed_tasks;
  if (tasks.length <= MAX_COMPLETED_TASKS) return undefined;
  const oldest = tasks.slice(0, tasks.length - COMPLETED_TASKS_KEPT);
  return { removed: oldest.map(completedLine).join('\n'), count: oldest.length, kept: tasks.slice(oldest.length) };
}

/** Replaces the oldest completed tasks by one pointer item; an earlier pointer is archived with them, so archives chain. */
export function applyCompletedArchive(state: Scratchpad, cut: CompletedArchiveCut, id: string): Scratchpad {
  const pointer = `[ARCHIVED ${cut.count} older completed tasks: scratchpad_read(scratchpad_id="${id}")]`;
  return { ...state, completed_tasks: [pointer, ...cut.kept] };
}

/** Replaces a section's oldest lines by a pointer to where they were archived. */
export function applyArchive(state: Scratchpad, cut: ArchiveCut, id: string): Scratchpad {
  return write(state, cut.section, `${archivePointer(id, cut.removed.length)}\n${cut.kept}`);
}

/** The entry ids the memory's archive pointers name, each once, in section order. */
export function archivePointerIds(state: Scratchpad): string[] {
  const texts = [...ARCHIVE_ORDER.map((key) => read(state, key)), ...state.completed_tasks.filter(isArchivePointer)];
  const ids = texts.flatMap((text) =>
    [...text.matchAll(/\[ARCHIVED [^\]\n]*?scratchpad_id="([^"\s]+)"\)\]/g)].map((match) => match[1] as string),
  );
  return [...new Set(ids)];
}
