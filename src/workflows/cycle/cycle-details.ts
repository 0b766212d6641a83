import type { CycleInput } from '../../core/cycle/input';
import type { Usage } from '../../core/cycle/model';
import { renderMarkdown } from '../../core/scratchpad/render';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { headCodePoints } from '../../core/text';
import { outcomeLine, withinSections } from './details-text';

/** Longest piece of user or model text one section of the details quotes, in code points. */
const QUOTE_POINTS = 4000;

/** What a cycle of each kind is, in words. */
const KIND_NAMES: Record<string, string> = {
  task: 'task cycle',
  chat: 'chat turn',
  stage: 'stage of a staged run',
  investigation: 'research investigation',
  subagent: 'sub-agent cycle',
};

function bullets(items: readonly string[]): string {
  return items.map((item) => `- ${headCodePoints(item.replace(/\s+/g, ' ').trim(), 500)}`).join('\n');
}

/**
 * What a cycle was asked, as markdown: its static details in the Web UI (set when it starts, so they show with no
 * worker running and whatever becomes of it). Whole sections within the details cap.
 */
export function askedDetails(input: CycleInput & { cycleId: string }): string {
  const kind = KIND_NAMES[input.kind ?? 'task'] ?? String(input.kind);
  const limits = [
    `at most ${input.maxIterations ?? 10} iterations`,
    ...(input.model ? [`model \`${input.model}\``] : []),
    ...(input.trigger ? [`trigger ${input.trigger}`] : []),
  ];
  const sections = [`**${kind}** \`${input.cycleId}\` of agent \`${input.agentId}\`, ${limits.join(', ')}`];
  if (input.kind === 'chat') sections.push(`### Message\n${headCodePoints(input.message, QUOTE_POINTS)}`);
  if (input.kind === 'investigation') {
    sections.push(`### Fact\n${input.research.entity} / ${input.research.field}`);
  }
  const { current_task: current, pending_actions: pending } = input.before;
  if (current) sections.push(`### Current task\n${headCodePoints(current, QUOTE_POINTS)}`);
  if (pending.length > 0) sections.push(`### Pending actions (${pending.length})\n${bullets(pending.slice(0, 50))}`);
  const directives = input.directives ?? [];
  if (directives.length > 0)
    sections.push(`### Directives (${directives.length})\n${bullets(directives.slice(0, 20))}`);
  if (input.kind === 'stage') sections.push(`### Stage context\n${headCodePoints(input.stage.context, QUOTE_POINTS)}`);
  return withinSections(sections);
}

/** What a cycle came to, for its memo: the outcome and the after-state, with no worker needed to read them. */
export interface CycleEnd {
  kind: string;
  outcome: string;
  error?: string | undefined;
  iterations: number;
  maxIterations: number;
  usage: Usage;
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
    completed: end.kind === 'chat' ? `replied after ${turns}` : `done in ${turns}`,
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
