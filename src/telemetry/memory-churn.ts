import { sharedEnds } from '../core/agent/memory-diff';
import { diffScratchpads } from '../core/scratchpad/diff';
import { type Scratchpad, SECTION_KEY_NAMES, TASK_KEYS, getSection } from '../core/scratchpad/scratchpad';

/** What changed between two memories: the keys, and characters added and removed (outside a shared head and tail). */
export interface MemoryChurn {
  sections: string[];
  charsAdded: number;
  charsRemoved: number;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** Characters `after` adds to and removes from `before`, outside the head and tail they share. */
function edit(before: string, after: string): { added: number; removed: number } {
  const { head, tail } = sharedEnds(before, after);
  return { added: after.length - head - tail, removed: before.length - head - tail };
}

/** The churn of one update or one cycle; the `last_updated` stamp is not memory. */
export function memoryChurn(before: Scratchpad, after: Scratchpad): MemoryChurn {
  const changes = diffScratchpads(before, after).filter((change) => change.key !== 'last_updated');
  let charsAdded = 0;
  let charsRemoved = 0;
  for (const change of changes) {
    const { added, removed } = edit(text(change.before), text(change.after));
    charsAdded += added;
    charsRemoved += removed;
  }
  return { sections: changes.map((change) => change.key), charsAdded, charsRemoved };
}

/** Characters each part of the memory holds: the five sections' fields and the task keys. */
export function memorySizes(state: Scratchpad): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const key of SECTION_KEY_NAMES) sizes[key] = getSection(state, key).length;
  for (const key of TASK_KEYS) sizes[key] = text(state[key]).length;
  return sizes;
}
