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

const DIVIDER = '\n\n---\n\n';

function renderSection({ heading, parts }: (typeof SECTIONS)[number], state: Scratchpad): string {
  return [
    `## ${heading}`,
    ...parts.flatMap(([title, value]) => [...(title ? [`### ${title}`] : []), orNone(value(state))]),
  ].join('\n');
}

/** The five sections as markdown, split by `---`. */
export function renderSections(state: Scratchpad): string {
  return SECTIONS.map((section) => renderSection(section, state)).join(DIVIDER);
}

function taskLines(state: Scratchpad): string[] {
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
  ];
}

function notesText(state: Scratchpad): string {
  return orNone(state.notes.replace(/^\n+/, ''));
}

/** The task state as markdown, placed after the five sections. */
export function renderTasks(state: Scratchpad): string {
  return [...taskLines(state), '', '---', '', '## NOTES', notesText(state)].join('\n');
}

/** The whole scratchpad as the model sees it. */
export function renderMarkdown(state: Scratchpad): string {
  return `${renderSections(state)}${DIVIDER}${renderTasks(state)}\n`;
}

/**
 * {@link renderMarkdown} in the pieces a prompt caches apart, in the order of their stability; joined, they are the
 * same text. The sections keep the seeds' order, which is already from most to least stable.
 */
export interface RenderedParts {
  /** IDENTITY, then UNDERSTANDING up to the lines of Known. */
  head: string;
  /**
   * Known, a piece per line (a blank line rides with the line before it): the section reflect appends to most, so
   * after an append every earlier piece is still there, unchanged.
   */
  known: string[];
  /** Believed and Unknown, and the divider after them: the end of the stable sections. */
  stableTail: string;
  /** TRAJECTORY, WORKSPACE, SELF, the tasks and the NOTES heading: what most turns change. */
  volatile: string;
  /** The notes: what each iteration of a task cycle adds to. */
  notes: string;
}

/** The scratchpad in the pieces of {@link RenderedParts}. */
export function renderParts(state: Scratchpad): RenderedParts {
  const [identity, understanding, ...rest] = SECTIONS.map((section) => renderSection(section, state));
  const knownHeading = '## UNDERSTANDING\n### Known\n';
  const known = orNone(state.understanding.known);
  const pieces: string[] = [];
  for (const line of known.split('\n')) {
    if (line.trim() === '' && pieces.length > 0) pieces[pieces.length - 1] += `${line}\n`;
    else pieces.push(`${line}\n`);
  }
  // The newline ending Known's last line is the one before `### Believed`.
  const afterKnown = (understanding as string).slice(knownHeading.length + known.length + 1);
  const tasks = [...taskLines(state), '', '---', '', '## NOTES', ''].join('\n');
  return {
    head: `${identity}${DIVIDER}${knownHeading}`,
    known: pieces,
    stableTail: `${afterKnown}${DIVIDER}`,
    volatile: `${rest.join(DIVIDER)}${DIVIDER}${tasks}`,
    notes: `${notesText(state)}\n`,
  };
}
