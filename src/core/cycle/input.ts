import { z } from 'zod';
import { DEFAULT_BUDGET_CHARS } from '../scratchpad/budget';
import { CacheTtlSchema, UsageSchema } from './model';
import { OutputCapsSchema } from './output-limits';
import { ScratchpadSchema } from '../scratchpad/scratchpad';
import { ToolPatternsSchema } from '../tools/select';
import { DecisionSchema } from '../tools/approval';
import { UnknownOutcomeSchema } from '../tools/idempotency';
import { shareable } from '../shareable';
import { HeartbeatTimeoutsSchema } from './liveness';

export const DEFAULT_MAX_ITERATIONS = 10;

/** Longest chat message, in characters: a user's message, not a document. */
export const MAX_MESSAGE_CHARS = 20_000;
/** Longest directive, in characters: it steers, and it rides every later prompt of its cycle. */
export const MAX_DIRECTIVE_CHARS = 2_000;
/** Most directives one cycle holds: each stays in every later prompt of the cycle. */
export const MAX_CYCLE_DIRECTIVES = 100;
/**
 * Most the directives one cycle or one agent holds may weigh, as JSON: they travel in the cycle's input and result and
 * the agent's continue-as-new, beside a scratchpad of up to 256 KB, all under the payload budget.
 */
export const DIRECTIVES_BUDGET_BYTES = 128 * 1024;

/** The `directive` signal's text, kept as sent: non-blank, and no longer than {@link MAX_DIRECTIVE_CHARS}. */
export const DirectiveTextSchema = shareable(
  z
    .string()
    .max(MAX_DIRECTIVE_CHARS, { message: `a directive is at most ${MAX_DIRECTIVE_CHARS} characters` })
    .refine((text) => text.trim() !== '', { message: 'a directive needs some text' }),
);

/** Longest a call may wait for a decision: a year. */
export const MAX_APPROVAL_TIMEOUT_MS = 365 * 24 * 60 * 60 * 1000;

/** A top-level cycle is at depth 0; a cycle at this depth may not spawn (sub-agents nest, but not far). */
export const MAX_SUBAGENT_DEPTH = 2;

/** The research fact a cycle investigates (`investigation`), or whose board its sub-agent reads (`subagent`). */
export const ResearchFactSchema = shareable(
  z.object({
    supervisorId: z.string().min(1).max(300),
    workerId: z.string().min(1).max(300),
    entity: z.string().min(1).max(200),
    field: z.string().min(1).max(200),
    /** The worker's capability token, which its board writes present; never given to a sub-agent. */
    token: z.string().min(1).max(100).optional(),
  }),
);
export type ResearchFact = z.output<ReturnType<typeof ResearchFactSchema>>;

export const CycleOutcomeSchema = shareable(z.enum(['completed', 'max_iterations', 'failed']));
export type CycleOutcome = z.infer<ReturnType<typeof CycleOutcomeSchema>>;

export const TriggerSchema = shareable(z.enum(['task', 'chat', 'schedule', 'manual']));
export type Trigger = z.infer<ReturnType<typeof TriggerSchema>>;

/** What every kind of cycle is given. */
const baseShape = () => ({
  agentId: z.string().min(1).max(300),
  /** Defaults to the workflow id. */
  cycleId: z.string().min(1).max(1000).optional(),
  before: ScratchpadSchema(),
  trigger: TriggerSchema().default('task'),
  maxIterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS),
  /** Model spec overriding the worker's default. */
  model: z.string().max(1000).optional(),
  /** How long the provider keeps the prompt's cached prefix; absent, the provider's default (5 minutes). */
  cacheTtl: CacheTtlSchema().optional(),
  /**
   * Work tools offered to the model: names and globs (`fs_*`, `github__*`) selected from the worker's tools. Absent:
   * the built-ins a cycle offers by default and every tool the worker has from code and MCP servers.
   */
  tools: ToolPatternsSchema().optional(),
  /** Attempts per activity before the cycle fails (Temporal retries in between). */
  maxAttempts: z.number().int().min(1).max(20).default(5),
  /** Ceiling on the rendered scratchpad; older content beyond it is archived. */
  budgetChars: z.number().int().min(1000).max(200_000).default(DEFAULT_BUDGET_CHARS),
  /** Directives held for this cycle while no cycle was running. */
  directives: z.array(z.string().max(MAX_MESSAGE_CHARS)).max(MAX_CYCLE_DIRECTIVES).default([]),
  /** A prior run's notes, appended at the bottom of the user message (cut, omitted when empty). */
  priorScratchpad: z.string().max(1_000_000).optional(),
  /** How deep this cycle is among sub-agents: 0 for an agent's own cycle, its parent's plus one for a sub-agent. */
  subagentDepth: z.number().int().min(0).max(MAX_SUBAGENT_DEPTH).default(0),
  /** The agent's own approval patterns: calls of tools they name wait for a person, beside the worker's policy. */
  approve: ToolPatternsSchema().optional(),
  /** How long a call waits for a decision before it is denied (default core/tools/approval.ts). */
  approvalTimeoutMs: z.number().int().min(1000).max(MAX_APPROVAL_TIMEOUT_MS).optional(),
  /** Most output tokens per model call, by phase; absent phases take {@link DEFAULT_OUTPUT_CAPS}. */
  maxOutputTokens: OutputCapsSchema().optional(),
  /** Heartbeat timeouts by activity kind; absent kinds take the default (core/cycle/liveness.ts). */
  heartbeatTimeoutMs: HeartbeatTimeoutsSchema().optional(),
});

/**
 * Input of one `agentCycle` workflow: what every cycle is given, plus the block of its kind. `task` runs the task
 * queue (design.md, The cycle); `chat` is one respond → reflect turn on `message`; `stage` is one stage of a staged
 * run; `investigation` is a research worker's fact; `subagent` is a fresh cycle a `spawn_subagent` call started.
 * A key no kind knows (an old `mode`, a misspelling) is refused, naming it.
 */
export const CycleInputSchema = shareable(
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('task'), ...baseShape() }),
    z.strictObject({
      kind: z.literal('chat'),
      ...baseShape(),
      // Counted in UTF-16 units, so twice the code points `send` allows: a message it accepted always fits.
      message: z.string().max(2 * MAX_MESSAGE_CHARS),
      /** A separate reflect call, or the update riding in the response. */
      twoPhase: z.boolean().default(true),
      /** Model spec for the reflect phase (a cheaper one). */
      reflectModel: z.string().max(1000).optional(),
    }),
    z.strictObject({
      kind: z.literal('stage'),
      ...baseShape(),
      /** The run's task, plan, this stage and notes, appended to the user message; the cap on written paths. */
      stage: z.object({ context: z.string().max(200_000), maxPaths: z.number().int().min(1).max(50) }),
    }),
    z.strictObject({ kind: z.literal('investigation'), ...baseShape(), research: ResearchFactSchema() }),
    z.strictObject({ kind: z.literal('subagent'), ...baseShape(), research: ResearchFactSchema().optional() }),
  ]),
);
type KindedInput = z.input<ReturnType<typeof CycleInputSchema>>;
/** What a starter passes: `kind` may be left out of a task cycle's input. */
export type CycleInput =
  Exclude<KindedInput, { kind: 'task' }> | (Omit<Extract<KindedInput, { kind: 'task' }>, 'kind'> & { kind?: 'task' });
export type ParsedCycleInput = z.output<ReturnType<typeof CycleInputSchema>>;
export type CycleKind = ParsedCycleInput['kind'];
/** A parsed input of one kind. */
export type InputOf<K extends CycleKind> = Extract<ParsedCycleInput, { kind: K }>;

/** A start that names no kind (the stock CLI, a hand-written input) is a task cycle. */
export function withDefaultKind(raw: unknown): unknown {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !('kind' in raw)
    ? { ...raw, kind: 'task' }
    : raw;
}

export const TraceEntrySchema = shareable(
  z.object({
    iteration: z.number(),
    request: z.object({ promptChars: z.number(), tools: z.array(z.string()) }),
    response: z.object({ text: z.string(), toolCalls: z.array(z.string()), stopReason: z.string().nullable() }),
    dispatch: z.enum(['tool', 'update', 'done', 'parse_error', 'unknown_tool', 'refused', 'reply', 'reflect']),
    phase: z.enum(['task', 'respond', 'reflect']).default('task'),
    /** The model of its list that answered the call, when the list names several. */
    model: z.string().optional(),
    action: z.object({ tool: z.string(), args: z.unknown() }).optional(),
    observation: z.string().optional(),
    error: z.string().optional(),
    usage: UsageSchema(),
    /** What a person decided on the call before it ran (or did not). */
    approvals: z.array(DecisionSchema()).optional(),
    /** The call may or may not have taken effect: its only attempt died without a result. */
    unknownOutcome: z.object({ key: z.string(), cause: z.string() }).optional(),
  }),
);
export type TraceEntry = z.input<ReturnType<typeof TraceEntrySchema>>;

/** Result of one cycle: the after-state (with `last_updated` untouched) and what happened. */
export const CycleResultSchema = shareable(
  z.object({
    agentId: z.string(),
    cycleId: z.string(),
    outcome: CycleOutcomeSchema(),
    after: ScratchpadSchema(),
    iterations: z.number(),
    usage: UsageSchema(),
    error: z.string().optional(),
    /** Chat: the assistant's reply. */
    reply: z.string().optional(),
    /** Directives this cycle showed the model, with the iteration that first saw each. */
    directives: z.array(z.object({ text: z.string(), iteration: z.number() })).default([]),
    /** Usage split by the model that reported it, for cost. */
    usageByModel: z.record(z.string(), UsageSchema()).default({}),
    /** Content moved out of the scratchpad to keep it within budget. */
    archived: z.array(z.object({ section: z.string(), id: z.string(), chars: z.number() })).default([]),
    /** Entries the memory's archive pointers name that the worker's observation store does not hold. */
    missingArchives: z.array(z.string()).optional(),
    /** Paths `fs_write` wrote, and paths the path cap refused (design.md, Stages). */
    touchedPaths: z.array(z.string()).optional(),
    refusedPaths: z.array(z.string()).optional(),
    /** What a stage's writes left in the observation store, newest per path (core/staged/input.ts, StageFile). */
    stageFiles: z.array(z.object({ path: z.string(), contentId: z.string(), sha256: z.string() })).optional(),
    /** The model's run-local notes: the last `scratchpad` field of its tool arguments (design.md, Prior scratchpad). */
    scratchpad: z.string().optional(),
    /** The board entry an accepted `board_write` appended (`VERIFIED e7`): it ended the investigation. */
    boardEntry: z.string().optional(),
    /** Decisions on the calls that waited for a person, newest kept (core/tools/approval.ts). */
    decisions: z.array(DecisionSchema()).optional(),
    /** Chat: why reflect left the memory as it was (design.md, Never silent). */
    memoryUnchanged: z.string().optional(),
    /** Chat: the reply stopped at the respond phase's output cap. */
    replyCut: z.literal(true).optional(),
    /** The model that answered the cycle's last call, when the one before it in its list had failed for good. */
    fallbackModel: z.string().optional(),
    /** Calls that may or may not have taken effect, this cycle's and its sub-agents', newest kept. */
    unknownOutcomes: z.array(UnknownOutcomeSchema()).optional(),
  }),
);
export type CycleResult = z.input<ReturnType<typeof CycleResultSchema>>;
