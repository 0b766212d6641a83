import type { CompletedTask, Scratchpad } from './scratchpad';

/**
 * Escapes lines of a value that would read as a heading (`## `, `### `, any ATX level, a setext underline) or a
 * divider (`---`), so a value can never fake a section: the
 * rendered markdown always parses back to the same headings. JavaScript's multiline `^` also matches after `\r`,
 * which markdown treats as a line break too.
 */
export function escapeStructure(value: string): string {
  return value.replace(/^([ \t]*)(#{1,6}(?=[ \t]|$)|---|===)/gm, '$1\\$2');
}

function list(items: readonly string[]): string {
  return items.length === 0 ? '(none)' : items.map((item) => `- ${escapeStructure(item)}`).join('\n');
}

/** Completed tasks shown to the model; older ones stay in the state and its snapshots. */
export const SHOWN_COMPLETED_TASKS = 20;

function completedList(items: readonly CompletedTask[]): string {
  if (items.length === 0) return '(none)';
  const shown = items.slice(-SHOWN_COMPLETED_TASKS).map(completedLine);
  const hidden = items.slice(0, items.length - shown.length);
  // A pointer to archived tasks stays in view, so the model knows where the older ones are.
  const pointers = hidden
    .filter((item) => typeof item === 'string' && item.startsWith('[ARCHIVED '))
    .map(completedLine);
  const omitted = hidden.length - pointers.length;
  return [...pointers, ...(omitted > 0 ? [`(${omitted} earlier completed task(s) not shown)`] : []), ...shown].join(
    '\n',
  );
}

/** One completed task as a markdown list line. */
export function completedLine(item: CompletedTask): string {
  return escapeStructure(typeof item === 'string' ? `- ${item}` : `- ${item.task} — ${item.summary}`);
}

function orNone(value: string): string {
  return value.trim() === '' ? '(none)' : escapeStructure(value);
}

/** The five sections in seed 001's markdown layout. */
export function renderSections(state: Scratchpad): string {
  return [
    '## IDENTITY',
    '### Purpose',
    orNone(state.identity.purpose),
    '### User',
    orNone(state.identity.user),
    '### Boundaries',
    orNone(state.identity.boundaries),
    '',
    '---',
    '',
    '## UNDERSTANDING',
    '### Known',
    orNone(state.understanding.known),
    '### Believed',
    orNone(state.understanding.believed),
    '### Unknown',
    orNone(state.understanding.unknown),
    '',
    '---',
    '',
    '## TRAJECTORY',
    '### Now',
    orNone(state.trajectory.now),
    '### Path',
    orNone(state.trajectory.path),
    '### Later',
    orNone(state.trajectory.later),
    '',
    '---',
    '',
    '## WORKSPACE',
    orNone(state.workspace),
    '',
    '---',
    '',
    '## SELF',
    '### Confidence',
    orNone(state.self.confidence),
    '### Attention',
    orNone(state.self.attention),
    '### Flags',
    orNone(state.self.flags),
  ].join('\n');
}

/** Seed 000's task state as markdown, placed after the five sections. */
export function renderTasks(state: Scratchpad): string {
  return [
    '## TASKS',
    '### Goals',
    list(state.goals),
    '### Current task',
    orNone(state.current_task ?? ''),
    '### Pending actions',
    list(state.pending_actions),
    '### Completed tasks',
    completedList(state.completed_tasks),
    '',
    '---',
    '',
    '## NOTES',
    orNone(state.notes.replace(/^\n+/, '')),
  ].join('\n');
}

/** The whole scratchpad as the model sees it. */
export function renderMarkdown(state: Scratchpad): string {
  return `${renderSections(state)}\n\n---\n\n${renderTasks(state)}\n`;
}
