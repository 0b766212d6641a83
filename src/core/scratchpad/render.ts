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

// Each section's heading, then its subsections' headings and values (WORKSPACE has none).
const SECTIONS: readonly { heading: string; parts: readonly [string | null, (state: Scratchpad) => string][] }[] = [
  {
    heading: 'IDENTITY',
    parts: [
      ['Purpose', (state) => state.identity.purpose],
      ['User', (state) => state.identity.user],
      ['Boundaries', (state) => state.identity.boundaries],
    ],
  },
  {
    heading: 'UNDERSTANDING',
    parts: [
      ['Known', (state) => state.understanding.known],
      ['Believed', (state) => state.understanding.believed],
      ['Unknown', (state) => state.understanding.unknown],
    ],
  },
  {
    heading: 'TRAJECTORY',
    parts: [
      ['Now', (state) => state.trajectory.now],
      ['Path', (state) => state.trajectory.path],
      ['Later', (state) => state.trajectory.later],
    ],
  },
  { heading: 'WORKSPACE', parts: [[null, (state) => state.workspace]] },
  {
    heading: 'SELF',
    parts: [
      ['Confidence', (state) => state.self.confidence],
      ['Attention', (state) => state.self.attention],
      ['Flags', (state) => state.self.flags],
    ],
  },
];

/** The five sections as markdown, split by `---`. */
export function renderSections(state: Scratchpad): string {
  return SECTIONS.map(({ heading, parts }) =>
    [
      `## ${heading}`,
      ...parts.flatMap(([title, value]) => [...(title ? [`### ${title}`] : []), orNone(value(state))]),
    ].join('\n'),
  ).join('\n\n---\n\n');
}

/** The task state as markdown, placed after the five sections. */
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
