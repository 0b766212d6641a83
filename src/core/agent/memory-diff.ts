import type { CompletedTask, Scratchpad } from '../scratchpad/scratchpad';

/** One line that differs between two states: `-` only in the first, `+` only in the second. */
export interface LineChange {
  op: '+' | '-';
  text: string;
}

/** The changed lines of one part of the scratchpad, e.g. TRAJECTORY / Now. */
export interface SectionDiff {
  section: string;
  part: string | null;
  changes: LineChange[];
}

type Part = readonly [section: string, part: string | null, lines: (state: Scratchpad) => string[]];

const text = (value: string): string[] => value.split(/\r?\n/);
const list = (items: readonly string[]): string[] => items.map((item) => `- ${item}`);
const completed = (item: CompletedTask): string =>
  typeof item === 'string' ? `- ${item}` : `- ${item.task} — ${item.summary}`;

// The five sections in the order seed 001 gives them, then the task state; `last_updated` is a stamp, not memory.
const PARTS: readonly Part[] = [
  ['IDENTITY', 'Purpose', (state) => text(state.identity.purpose)],
  ['IDENTITY', 'User', (state) => text(state.identity.user)],
  ['IDENTITY', 'Boundaries', (state) => text(state.identity.boundaries)],
  ['UNDERSTANDING', 'Known', (state) => text(state.understanding.known)],
  ['UNDERSTANDING', 'Believed', (state) => text(state.understanding.believed)],
  ['UNDERSTANDING', 'Unknown', (state) => text(state.understanding.unknown)],
  ['TRAJECTORY', 'Now', (state) => text(state.trajectory.now)],
  ['TRAJECTORY', 'Path', (state) => text(state.trajectory.path)],
  ['TRAJECTORY', 'Later', (state) => text(state.trajectory.later)],
  ['WORKSPACE', null, (state) => text(state.workspace)],
  ['SELF', 'Confidence', (state) => text(state.self.confidence)],
  ['SELF', 'Attention', (state) => text(state.self.attention)],
  ['SELF', 'Flags', (state) => text(state.self.flags)],
  ['TASKS', 'Goals', (state) => list(state.goals)],
  ['TASKS', 'Current task', (state) => (state.current_task === null ? [] : text(state.current_task))],
  ['TASKS', 'Pending actions', (state) => list(state.pending_actions)],
  ['TASKS', 'Completed tasks', (state) => state.completed_tasks.map(completed)],
  ['NOTES', null, (state) => (state.notes === '' ? [] : text(state.notes))],
];

/** Past this many cells the line table is not built: the changed middle is shown as removed, then added. */
const MAX_TABLE_CELLS = 4_000_000;

/** How many leading and trailing items two sequences share (the tail never overlapping the head). */
export function sharedEnds<T>(before: ArrayLike<T>, after: ArrayLike<T>): { head: number; tail: number } {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  return { head, tail };
}

/**
 * The lines removed from `before` and added in `after`, in order, from a longest common subsequence of lines; the
 * common head and tail are set aside first, so a long section with one changed line costs little.
 */
export function lineChanges(before: readonly string[], after: readonly string[]): LineChange[] {
  const { head, tail } = sharedEnds(before, after);
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  const removed = (line: string): LineChange => ({ op: '-', text: line });
  const added = (line: string): LineChange => ({ op: '+', text: line });
  if ((a.length + 1) * (b.length + 1) > MAX_TABLE_CELLS) return [...a.map(removed), ...b.map(added)];
  // common[i][j]: the longest common subsequence of a[i..] and b[j..], one flat row-major table.
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] =
        a[i] === b[j]
          ? common[(i + 1) * width + j + 1]! + 1
          : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
    }
  }
  const changes: LineChange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && common[(i + 1) * width + j]! >= common[i * width + j + 1]!)) {
      changes.push(removed(a[i++]!));
    } else {
      changes.push(added(b[j++]!));
    }
  }
  return changes;
}

/** Section by section, the lines that differ between two scratchpads; parts that did not change are left out. */
export function memoryDiff(before: Scratchpad, after: Scratchpad): SectionDiff[] {
  return PARTS.flatMap(([section, part, lines]) => {
    const changes = lineChanges(lines(before), lines(after));
    return changes.length > 0 ? [{ section, part, changes }] : [];
  });
}
