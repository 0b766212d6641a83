import type { CycleInput } from '../../core/cycle/input';
import type { Usage } from '../../core/cycle/model';
import { renderMarkdown } from '../../core/scratchpad/render';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { headCodePoints } from '../../core/text';
import { outcomeLine, withinSections } from './details-text';

/** Longest piece of user or model text one section of the details quotes, in code points. */
export const QUOTE_POINTS = 4000;

/** What a cycle is, as its starter describes it for the Web UI: its name in words, and sections of its own. */
export interface CycleDescription {
  /** `task cycle`, `chat turn`, ... */
  name: string;
  /** Markdown sections before the scratchpad's task (what it answers), and after the directives (its context). */
  lead?: readonly string[];
  tail?: readonly string[];
}

function bullets(items: readonly string[]): string {
  return items.map((item) => `- ${headCodePoints(item.replace(/\s+/g, ' ').trim(), 500)}`).join('\n');
}

/**
 * What a cycle was asked, as markdown: its static details in the Web UI (set when it starts, so they show with no
 * worker running and whatever becomes of it). Whole sections within the details cap.
 */
export function askedDetails(input: CycleInput & { cycleId: string }, description: CycleDescription): string {
  const limits = [
    `at most ${input.maxIterations ?? 10} iterations`,
    ...(input.model ? [`model \`${input.model}\``] : []),
    ...(input.trigger ? [`trigger ${input.trigger}`] : []),
  ];
  const sections = [`**${description.name}** \`${input.cycleId}\` of agent \`${input.agentId}\`, ${limits.join(', ')}`];
  sections.push(...(description.lead ?? []));
  const { current_task: current, pending_actions: pending } = input.before;
  if (current) sections.push(`### Current task\n${headCodePoints(current, QUOTE_POINTS)}`);
  if (pending.length > 0) sections.push(`### Pending actions (${pending.length})\n${bullets(pending.slice(0, 50))}`);
  const directives = input.directives ?? [];
  if (directives.length > 0)
    sections.push(`### Directives (${directives.length})\n${bullets(directives.slice(0, 20))}`);
  sections.push(...(description.tail ?? []));
  return withinSections(sections);
}

/** What a cycle came to, for its memo: the outcome and the after-state, with no worker needed to read them. */
export interface CycleEnd {
  outcome: string;
  error?: string | undefined;
  iterations: number;
  maxIterations: number;
  usage: Usage;
  /** A chat turn's reply: a completed turn replied rather than finished a task. */
  reply?: string | undefined;
  after: Scratchpad;
}

/** The outcome in words, on one line: `failed: <why>`, `max_iterations: …`, `completed: …`. */
export function cycleOutcomeLine(end: CycleEnd): string {
  const turns = `${end.iterations} iteration${end.iterations === 1 ? '' : 's'}`;
  const reasons: Record<string, string> = {
    failed: end.error ?? 'unknown error',
    max_iterations: `stopped at the limit of ${end.maxIterations} iterations before the work was done`,
    cancelled: `cancelled after ${turns}; the agent keeps its scratchpad as it was`,
    completed: end.reply !== undefined ? `replied after ${turns}` : `done in ${turns}`,
  };
  return outcomeLine(end.outcome, reasons[end.outcome]);
}

/**
 * The cycle's details at its end: the outcome line first, then usage, the reply of a chat turn, and the scratchpad
 * it leaves by section (whole sections within the cap, the ones left out named).
 */
export function cycleDetails(end: CycleEnd): string {
  const { inputTokens, outputTokens } = end.usage;
  const head = `${cycleOutcomeLine(end)}\n\n${end.iterations} iterations, ${inputTokens} input and ${outputTokens} output tokens`;
  const reply = end.reply !== undefined ? [`### Reply\n${headCodePoints(end.reply, QUOTE_POINTS)}`] : [];
  const scratchpad = renderMarkdown(end.after).trim().split('\n\n---\n\n');
  return withinSections([head, ...reply, ...scratchpad]);
}
