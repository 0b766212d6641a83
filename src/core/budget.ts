import { renderMarkdown } from './render';
import { type Scratchpad, type SectionKey, getSection, setSection } from './scratchpad';

/** Default ceiling on the rendered scratchpad, in characters. */
export const DEFAULT_BUDGET_CHARS = 8000;

/** Sections that grow, in the order their oldest content is archived (seed 001 `archive_workspace`). */
export const ARCHIVE_ORDER: readonly SectionKey[] = ['workspace', 'trajectory_path', 'understanding_known'];

/** One section's oldest content to move out of the scratchpad. */
export interface ArchiveCut {
  section: SectionKey;
  /** Oldest lines, moved to the observation store. */
  removed: string;
  /** Newest lines, kept in place. */
  kept: string;
}

export function renderedSize(state: Scratchpad): number {
  return renderMarkdown(state).length;
}

const POINTER_ALLOWANCE = 160;

/**
 * Plans the smallest cut of oldest lines that brings the rendered scratchpad within `budget`:
 * WORKSPACE first, then Path, then Known; the newest line of a section is always kept.
 */
export function planArchive(state: Scratchpad, budget: number): ArchiveCut[] {
  let excess = renderedSize(state) - budget;
  const cuts: ArchiveCut[] = [];
  for (const section of ARCHIVE_ORDER) {
    if (excess <= 0) break;
    const lines = getSection(state, section).split('\n');
    let cut = 0;
    let freed = 0;
    while (cut < lines.length - 1 && freed - POINTER_ALLOWANCE < excess) {
      freed += (lines[cut] as string).length + 1;
      cut++;
    }
    if (cut === 0 || freed <= POINTER_ALLOWANCE) continue;
    cuts.push({ section, removed: lines.slice(0, cut).join('\n'), kept: lines.slice(cut).join('\n') });
    excess -= freed - POINTER_ALLOWANCE;
  }
  return cuts;
}

/** The line left where archived content was, telling the model how to read it back. */
export function archivePointer(id: string, chars: number): string {
  return `[ARCHIVED ${chars} chars of older content: scratchpad_read(scratchpad_id="${id}")]`;
}

/** Replaces a section's oldest lines by a pointer to where they were archived. */
export function applyArchive(state: Scratchpad, cut: ArchiveCut, id: string): Scratchpad {
  return setSection(state, cut.section, `${archivePointer(id, cut.removed.length)}\n${cut.kept}`);
}
