import {
  type CycleInput,
  type CycleResult,
  MAX_SUBAGENT_DEPTH,
  type ParsedCycleInput,
  type ResearchFact,
} from '../cycle/input';
import { withChildUsage } from '../cycle/model';
import type { Observation } from '../tools/observation';
import { approvalInputOf } from '../tools/approval-policy';
import { type Scratchpad, defaultScratchpad } from '../scratchpad/scratchpad';
import { codePointLength, tailCodePoints } from '../text';
import { SUBAGENT_TOOL_ARGS } from './subagent-tool';

export { MAX_SUBAGENT_DEPTH, withChildUsage };
/** Most sub-agents one cycle may spawn: each is a whole cycle of model calls. */
export const MAX_SUBAGENTS_PER_CYCLE = 3;
/** Characters of a child's notes a parent sees when the child stopped without finishing. */
export const SUBAGENT_NOTES_CHARS = 1000;

/** Why the next spawn is refused, or undefined when it may run. */
export function subagentRefusal(depth: number, spawned: number): string | undefined {
  if (depth >= MAX_SUBAGENT_DEPTH) {
    return (
      `spawn_subagent refused: this cycle is a sub-agent at depth ${depth}, the limit is ${MAX_SUBAGENT_DEPTH}; ` +
      'do the task yourself'
    );
  }
  if (spawned >= MAX_SUBAGENTS_PER_CYCLE) {
    return (
      `spawn_subagent refused: this cycle has already spawned ${spawned} sub-agents, ` +
      `the limit is ${MAX_SUBAGENTS_PER_CYCLE} per cycle; do the rest yourself`
    );
  }
  return undefined;
}

/** The tool's arguments, checked: the model is untrusted, so a bad call becomes an observation. */
export function parseSubagentArgs(
  args: unknown,
): { ok: true; task: string; context: string } | { ok: false; error: string } {
  const parsed = SUBAGENT_TOOL_ARGS.spawn_subagent().safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'args'}: ${issue.message}`);
    return { ok: false, error: `invalid spawn_subagent arguments: ${issues.join('; ')}` };
  }
  return { ok: true, task: parsed.data.task, context: parsed.data.context ?? '' };
}

/** Task as purpose and current task, context as WORKSPACE, nothing of the parent's memory (design.md, Sub-agents). */
export function subagentScratchpad(task: string, context: string): Scratchpad {
  const fresh = defaultScratchpad(task);
  return { ...fresh, current_task: task, workspace: context.trim() === '' ? fresh.workspace : context };
}

/** What a fresh child cycle is given: its id, task and context, where it runs, and the limits it inherits. */
export type FreshCycleSpec = FreshCycleBase &
  /** A research worker's fact: an `investigation` writes it; a `subagent` only reads its board. */
  ({ kind: 'subagent'; research?: ResearchFact } | { kind: 'investigation'; research: ResearchFact });

interface FreshCycleBase {
  agentId: string;
  cycleId: string;
  task: string;
  context: string;
  /** Its depth among sub-agents: one below whoever started it. */
  depth: number;
  maxIterations: number;
  model?: string;
  /** Names and globs; absent: the worker's default selection. */
  tools?: string[];
  maxAttempts?: number;
  budgetChars?: number;
}

/** A cycle with a fresh scratchpad and nothing else of whoever started it: sub-agents and research workers alike. */
export function freshCycleInput(spec: FreshCycleSpec): CycleInput & { cycleId: string } {
  const common = {
    agentId: spec.agentId,
    cycleId: spec.cycleId,
    before: subagentScratchpad(spec.task, spec.context),
    trigger: 'task' as const,
    maxIterations: spec.maxIterations,
    ...(spec.model !== undefined ? { model: spec.model } : {}),
    ...(spec.tools !== undefined ? { tools: spec.tools } : {}),
    ...(spec.maxAttempts !== undefined ? { maxAttempts: spec.maxAttempts } : {}),
    ...(spec.budgetChars !== undefined ? { budgetChars: spec.budgetChars } : {}),
    subagentDepth: spec.depth,
  };
  if (spec.kind === 'investigation') return { kind: 'investigation', ...common, research: spec.research };
  return { kind: 'subagent', ...common, ...(spec.research ? { research: spec.research } : {}) };
}

/**
 * The child cycle's input: the parent's model and limits, a fresh scratchpad, one level deeper. A research
 * investigation's sub-agent keeps its board for tombstones but may not write the parent's fact.
 */
export function subagentInput(
  parent: ParsedCycleInput,
  cycleId: string,
  task: string,
  context: string,
): CycleInput & { cycleId: string } {
  const research =
    parent.kind === 'investigation' || parent.kind === 'subagent' ? withoutToken(parent.research) : undefined;
  const input = freshCycleInput({
    kind: 'subagent',
    agentId: parent.agentId,
    cycleId,
    task,
    context,
    depth: parent.subagentDepth + 1,
    maxIterations: parent.maxIterations,
    ...(parent.model !== undefined ? { model: parent.model } : {}),
    ...(parent.tools !== undefined ? { tools: parent.tools } : {}),
    maxAttempts: parent.maxAttempts,
    budgetChars: parent.budgetChars,
    ...(research ? { research } : {}),
  });
  // A sub-agent asks for approval wherever its parent would: spawning one is no way around the agent's policy.
  return { ...input, ...approvalInputOf(parent) };
}

/** A research fact without the worker's capability token: a sub-agent reads its board but never writes it. */
function withoutToken(fact: ResearchFact | undefined): ResearchFact | undefined {
  if (!fact) return undefined;
  const { token: _token, ...rest } = fact;
  return rest;
}

/** The summary the child gave `done` for its task: the first completed task of its fresh scratchpad. */
function doneSummary(after: Scratchpad): string | undefined {
  for (const item of after.completed_tasks) if (typeof item !== 'string') return item.summary;
  return undefined;
}

/**
 * What the parent sees: the child's `done` summary, or why it has none. A failed observation reaches notes as its
 * error alone, so the end of a stopped child's notes goes in the error.
 */
export function subagentObservation(result: CycleResult): Observation {
  const fields = { subagent: result.cycleId, outcome: result.outcome, iterations: result.iterations };
  const summary = result.outcome === 'completed' ? doneSummary(result.after) : undefined;
  if (summary !== undefined) return { ok: true, result: summary, ...fields };
  if (result.outcome === 'failed') {
    return { ok: false, error: `sub-agent ${result.cycleId} failed: ${result.error ?? 'unknown error'}`, ...fields };
  }
  const notes = result.after.notes;
  const tail =
    codePointLength(notes) > SUBAGENT_NOTES_CHARS ? `…${tailCodePoints(notes, SUBAGENT_NOTES_CHARS)}` : notes;
  const error =
    `sub-agent ${result.cycleId} stopped (${result.outcome}) after ${result.iterations} iterations without ` +
    `finishing its task; the end of its notes:\n${tail}`;
  return { ok: false, error, ...fields };
}
