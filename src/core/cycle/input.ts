import { z } from 'zod';
import { DEFAULT_BUDGET_CHARS } from '../scratchpad/budget';
import { CacheTtlSchema, UsageSchema } from './model';
import { OutputCapsSchema } from './output-limits';
import { ScratchpadSchema } from '../scratchpad/scratchpad';
import { ToolPatternsSchema } from '../tools/select';
import { DecisionSchema } from '../tools/approval';
import { UnknownOutcomeSchema } from '../tools/idempotency';
import { getterOf } from '../shareable';
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
export const DirectiveTextSchema = getterOf(
  z
    .string()
    .max(MAX_DIRECTIVE_CHARS, { message: `a directive is at most ${MAX_DIRECTIVE_CHARS} characters` })
    .refine((text) => text.trim() !== '', { message: 'a directive needs some text' }),
);

/** Longest a call may wait for a decision: a year. */
export const MAX_APPROVAL_TIMEOUT_MS = 365 * 24 * 60 * 60 * 1000;

export const CycleOutcomeSchema = getterOf(z.enum(['completed', 'max_iterations', 'failed']));
export type CycleOutcome = z.infer<ReturnType<typeof CycleOutcomeSchema>>;

export const TriggerSchema = getterOf(z.enum(['task', 'chat', 'schedule', 'manual']));
export type Trigger = z.infer<ReturnType<typeof TriggerSchema>>;

/** What every cycle is given, whatever workflow runs it: each feature's own input extends it. */
export const cycleInputShape = () => ({
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
  /** The agent's own approval patterns: calls of tools they name wait for a person, beside the worker's policy. */
  approve: ToolPatternsSchema().optional(),
  /** How long a call waits for a decision before it is denied (default core/tools/approval.ts). */
  approvalTimeoutMs: z.number().int().min(1000).max(MAX_APPROVAL_TIMEOUT_MS).optional(),
  /** Most output tokens per model call, by phase; absent phases take {@link DEFAULT_OUTPUT_CAPS}. */
  maxOutputTokens: OutputCapsSchema().optional(),
  /** Heartbeat timeouts by activity kind; absent kinds take the default (core/cycle/liveness.ts). */
  heartbeatTimeoutMs: HeartbeatTimeoutsSchema().optional(),
  /** A chat turn's reply goes to its stream as the model writes it (design.md, Streaming), not only at its end. */
  stream: z.boolean().optional(),
});

/**
 * The base input of a cycle: what `runCycle` reads. A feature's workflow parses its own input, this shape extended,
 * and hands the kernel the whole of it; a key no shape knows (an old `mode`, a misspelling) is refused, naming it.
 */
export const CycleInputSchema = getterOf(z.strictObject(cycleInputShape()));
export type CycleInput = z.input<ReturnType<typeof CycleInputSchema>>;
export type ParsedCycleInput = z.output<ReturnType<typeof CycleInputSchema>>;

/** What a chat turn adds: the message it answers, and how its memory is kept (design.md, Chat turns). */
export const chatTurnShape = () => ({
  // Counted in UTF-16 units, so twice the code points `send` allows: a message it accepted always fits.
  message: z.string().max(2 * MAX_MESSAGE_CHARS),
  /** A separate reflect call, or the update riding in the response. */
  twoPhase: z.boolean().default(true),
  /** Model spec for the reflect phase (a cheaper one). */
  reflectModel: z.string().max(1000).optional(),
});
export type ChatTurn = z.output<z.ZodObject<ReturnType<typeof chatTurnShape>>>;

export const TraceEntrySchema = getterOf(
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

/**
 * Result of one cycle: the after-state (with `last_updated` untouched) and what happened. A feature's workflow returns
 * it extended with the feature's own fields.
 */
export const cycleResultShape = () => ({
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
  /** The model's run-local notes: the last `scratchpad` field of its tool arguments (design.md, Prior scratchpad). */
  runNotes: z.string().optional(),
  /** Decisions on the calls that waited for a person, newest kept (core/tools/approval.ts). */
  decisions: z.array(DecisionSchema()).optional(),
  /** Chat: why reflect left the memory as it was (design.md, Never silent). */
  memoryUnchanged: z.string().optional(),
  /** Chat: the reply stopped at the respond phase's output cap. */
  replyCut: z.literal(true).optional(),
  /** The model that answered the cycle's last call, when the one before it in its list had failed for good. */
  fallbackModel: z.string().optional(),
  /** Calls that may or may not have taken effect, this cycle's and its children's, newest kept. */
  unknownOutcomes: z.array(UnknownOutcomeSchema()).optional(),
});
export const CycleResultSchema = getterOf(z.object(cycleResultShape()));
export type CycleResult = z.input<ReturnType<typeof CycleResultSchema>>;
