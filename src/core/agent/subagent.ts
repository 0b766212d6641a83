import { z } from 'zod';
import { type CycleInput, type CycleResult, type ParsedCycleInput, cycleInputShape } from '../cycle/input';
import { withChildUsage } from '../cycle/model';
import type { Observation } from '../tools/observation';
import { approvalInputOf } from '../tools/approval-policy';
import { type Scratchpad, defaultScratchpad } from '../scratchpad/scratchpad';
import { getterOf } from '../shareable';
import { codePointLength, tailCodePoints } from '../text';
import { SUBAGENT_TOOL_ARGS } from './subagent-tool';

export { withChildUsage };
/** A top-level cycle is at depth 0; a cycle at this depth may not spawn (sub-agents nest, but not far). */
export const MAX_SUBAGENT_DEPTH = 2;
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
export interface FreshCycleSpec {
  agentId: string;
  cycleId: string;
  task: string;
  context: string;
  maxIterations: number;
  model?: string;
  /** Names and globs; absent: the worker's default selection. */
  tools?: string[];
  maxAttempts?: number;
  budgetChars?: number;
}

/** A cycle with a fresh scratchpad and nothing else of whoever started it: sub-agents and research workers alike. */
export function freshCycleInput(spec: FreshCycleSpec): CycleInput & { cycleId: string } {
  return {
    agentId: spec.agentId,
    cycleId: spec.cycleId,
    before: subagentScratchpad(spec.task, spec.context),
    trigger: 'task' as const,
    maxIterations: spec.maxIterations,
    ...(spec.model !== undefined ? { model: spec.model } : {}),
    ...(spec.tools !== undefined ? { tools: spec.tools } : {}),
    ...(spec.maxAttempts !== undefined ? { maxAttempts: spec.maxAttempts } : {}),
    ...(spec.budgetChars !== undefined ? { budgetChars: spec.budgetChars } : {}),
  };
}

/**
 * What a sub-agent keeps of the cycle that spawned it beyond its limits: the fields that cycle's tool calls carried
 * (a research investigation's board, whose tombstones `web_fetch` still refuses) and how its waits were named.
 */
const InheritedSchema = z.strictObject({
  callContext: z
    .record(z.string().max(100), z.string().max(1000))
    .refine((context) => Object.keys(context).length <= 10, { message: 'at most 10 fields' })
    .optional(),
  waitContext: z.string().max(1000).optional(),
});
export type Inherited = z.output<typeof InheritedSchema>;

/** Input of one `subagentCycle` workflow: the base input, its depth among sub-agents, and what it inherited. */
export const SubagentCycleInputSchema = getterOf(
  z.strictObject({
    ...cycleInputShape(),
    /** One below whoever spawned it; the schema refuses a child past the limit rather than run it. */
    depth: z.number().int().min(1).max(MAX_SUBAGENT_DEPTH),
    inherited: InheritedSchema.optional(),
  }),
);
export type SubagentCycleInput = z.input<ReturnType<typeof SubagentCycleInputSchema>>;

/** Where a sub-agent is spawned from: its parent's input and depth, and what the parent's features pass down. */
export interface SpawnPoint {
  parent: ParsedCycleInput;
  depth: number;
  /** Workflow-side tools of the parent alone (a research investigation's `board_write`): the child is not given them. */
  withhold?: readonly string[];
  inherited?: Inherited;
}

/**
 * The child cycle's input: the parent's model and limits, a fresh scratchpad, one level deeper, and what the parent's
 * features pass down (a research investigation's board, for tombstones, but never its right to write the fact).
 */
export function subagentInput(
  from: SpawnPoint,
  cycleId: string,
  task: string,
  context: string,
): SubagentCycleInput & { cycleId: string } {
  const { parent, withhold = [] } = from;
  const tools = parent.tools?.filter((tool) => !withhold.includes(tool));
  const input = freshCycleInput({
    agentId: parent.agentId,
    cycleId,
    task,
    context,
    maxIterations: parent.maxIterations,
    ...(parent.model !== undefined ? { model: parent.model } : {}),
    ...(tools !== undefined ? { tools } : {}),
    maxAttempts: parent.maxAttempts,
    budgetChars: parent.budgetChars,
  });
  const inherited = from.inherited && Object.keys(from.inherited).length > 0 ? { inherited: from.inherited } : {};
  // A sub-agent asks for approval wherever its parent would: spawning one is no way around the agent's policy.
  return { ...input, depth: from.depth + 1, ...inherited, ...approvalInputOf(parent) };
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
