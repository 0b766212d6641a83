/**
 * Run-local notes (design.md, Staged runs): the model may put a `scratchpad` field in any tool's arguments; the last
 * one is saved with the run, and a later run can be given it back as its prior scratchpad. Every kind of cycle
 * carries them, so they live with the cycle, not with staged runs.
 */

/**
 * The notes convention the system prompt suggests (seed 004): a shape the model may follow or ignore; nothing parses
 * it. Every cycle that runs the task loop keeps notes, so its system prompt carries it, as the staged prompts do.
 */
export const RUN_NOTES_CONVENTION = `You may keep run-local notes: add a "scratchpad" field to any tool's arguments, for example
{"plan": [...], "done": [...], "next": "...", "notes": "..."}. The last one is saved with the run and shown to the next
run as its prior scratchpad.`;

/** Characters of a prior scratchpad kept: a runaway scratchpad must not crowd out the task. */
export const PRIOR_SCRATCHPAD_CHARS = 2000;

/** Most characters of a model's run-local scratchpad kept with a run. */
export const MAX_SCRATCHPAD_CHARS = 8000;

/** `## Prior scratchpad` and the text, cut at {@link PRIOR_SCRATCHPAD_CHARS}; empty when there is nothing to carry. */
export function priorScratchpadBlock(text: string | undefined): string {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return '';
  return `## Prior scratchpad\n\n${Array.from(trimmed).slice(0, PRIOR_SCRATCHPAD_CHARS).join('')}`;
}

/** Appends the prior scratchpad at the bottom of a user message: small models attend to user content most. */
export function withPriorScratchpad(message: string, prior: string | undefined): string {
  const block = priorScratchpadBlock(prior);
  return block === '' ? message : `${message}\n\n${block}`;
}

/** The model's run-local notes from a tool call's arguments: a string, or JSON for anything else; capped. */
export function scratchpadFromArgs(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || !('scratchpad' in args)) return undefined;
  const value = (args as { scratchpad: unknown }).scratchpad;
  if (value === undefined || value === null) return undefined;
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (text === undefined || text.trim() === '') return undefined;
  return Array.from(text).slice(0, MAX_SCRATCHPAD_CHARS).join('');
}
