import { renderMarkdown, renderParts } from '../scratchpad/render';
import type { Scratchpad } from '../scratchpad/scratchpad';
import { type MessageContent, type TextBlock, contentText } from './model';
import { RUN_NOTES_CONVENTION } from './run-notes';

/** The task cycle's agent rules; stable across iterations so providers can cache it. */
export const CYCLE_SYSTEM = `You are an autonomous agent whose memory is a structured scratchpad, not a chat transcript.
Each message shows your whole scratchpad: your identity, understanding, trajectory, workspace, self-assessment,
your task queue (goals, current task, pending actions, completed tasks) and notes of what tools returned this cycle.

Every reply is exactly one action, a call to one tool:
- a work tool (echo, shell, fs_read, fs_write, web_fetch, ...) — its result is appended to your notes;
- update_scratchpad — record what you learned, set current_task, replace pending_actions, extend completed_tasks,
  or curate any section (REPLACE by default, "APPEND: " to add a line, "CLEAR" to empty);
- done — the current task is finished; give a one-line summary. The next pending action becomes current.

Work on the current task. Keep the scratchpad accurate and short: it is all you will remember.
Do not repeat a tool call whose result is already in your notes. When the task is complete, call done.

${RUN_NOTES_CONVENTION}`;

/** Respond, in two-phase mode (design.md, Respond). */
export const RESPOND_SYSTEM = `You are an AI assistant with persistent understanding.
Your context contains your current scratchpad - a structured representation of
what you understand about this conversation, this user, and your ongoing work.
This is not a transcript. It's your live model of the situation.
Trust it. Build on it. Respond naturally.
After you respond, a separate reflection process will update your understanding.
You don't need to manage memory - just be present and helpful.`;

/** Reflect (design.md, Reflect). */
export const REFLECT_SYSTEM = `You are a reflection process observing an AI assistant.
You just saw an exchange:
- The assistant's prior understanding (scratchpad)
- The user's input
- The assistant's response
Your job: Update the scratchpad to reflect what changed.
PRINCIPLES:
1. MINIMAL - Most turns only need TRAJECTORY.Now and maybe WORKSPACE
2. HONEST - If confidence dropped, say so. If something's unclear, mark it Unknown.
3. FORWARD-LOOKING - Curate for future usefulness, not historical completeness
4. PRESERVE WHAT MATTERS - Don't lose critical context to save tokens
Call update_scratchpad with ONLY the sections that need to change.
If nothing meaningful changed, call with no arguments.`;

/** Single-phase mode (design.md): the respond turn maintains the scratchpad itself. */
export const RESPOND_SINGLE_SYSTEM = `${RESPOND_SYSTEM.replace(/\nAfter you respond[\s\S]*$/, '')}
Your scratchpad is your only memory between turns. Reply to the user in text. In the same response, call
update_scratchpad with only the sections that changed (REPLACE by default, "APPEND: " to add a line, "CLEAR" to
empty), or do not call it if nothing meaningful changed.`;

export interface CyclePromptContext {
  iteration: number;
  maxIterations: number;
  directives?: readonly string[];
}

/** Directives as the model sees them, one `USER DIRECTIVE:` line each. */
export function directiveLines(directives: readonly string[]): string {
  return directives.map((text) => `USER DIRECTIVE: ${text}`).join('\n');
}

/** The user turn of one cycle iteration: the scratchpad, nothing from earlier iterations but what it holds. */
export function buildCyclePrompt(state: Scratchpad, context: CyclePromptContext): string {
  const directives = directiveLines(context.directives ?? []);
  return [
    '<scratchpad>',
    renderMarkdown(state).trimEnd(),
    '</scratchpad>',
    '',
    ...(directives ? [directives, ''] : []),
    `Iteration ${context.iteration} of ${context.maxIterations}. Choose the next action for the current task.`,
  ].join('\n');
}

/**
 * A user message that opens with the scratchpad, as blocks whose text is `before`, the rendered scratchpad (trimmed)
 * and `after`. Marked for caching: the end of Known and the end of the stable sections (IDENTITY, UNDERSTANDING),
 * which most turns leave as they were, and with `markNotes` the start of the notes, which a task cycle's iterations
 * add to (design.md, Prompt order and caching).
 */
export function scratchpadContent(state: Scratchpad, before: string, after: string, markNotes = false): TextBlock[] {
  const { head, known, stableTail, volatile, notes } = renderParts(state);
  const lines: TextBlock[] = known.map((text, index) =>
    index === known.length - 1 ? { text, cache: true } : { text },
  );
  const [first, ...rest] = lines;
  const opening: TextBlock[] = first ? [{ ...first, text: `${before}${head}${first.text}` }, ...rest] : [];
  const tail = markNotes
    ? [{ text: volatile, cache: true as const }, { text: `${notes.trimEnd()}${after}` }]
    : [{ text: `${`${volatile}${notes}`.trimEnd()}${after}` }];
  return [...opening, { text: stableTail, cache: true }, ...tail];
}

/**
 * The task cycle's user message: {@link buildCyclePrompt}'s text (with what the features appended) in blocks, so the
 * scratchpad's stable sections and everything before the notes can be cached across iterations. A prompt that does
 * not open with the scratchpad stays whole.
 */
export function cyclePromptContent(state: Scratchpad, prompt: string): MessageContent {
  const blocks = scratchpadContent(state, '<scratchpad>\n', '', true);
  const text = contentText(blocks);
  const last = blocks.at(-1);
  if (!last || !prompt.startsWith(text)) return prompt;
  return [...blocks.slice(0, -1), { text: `${last.text}${prompt.slice(text.length)}` }];
}
