import { z } from 'zod';
import { DEFAULT_BUDGET_CHARS } from '../scratchpad/budget';
import {
  DEFAULT_MAX_ITERATIONS,
  MAX_APPROVAL_TIMEOUT_MS,
  MAX_MESSAGE_CHARS,
  type Trigger,
  TriggerSchema,
} from '../cycle/input';
import { type CacheTtl, CacheTtlSchema, type Usage, UsageSchema, ZERO_USAGE, addUsage } from '../cycle/model';
import { OutputCapsSchema } from '../cycle/output-limits';
import { ScratchpadSchema, UPDATE_KEYS } from '../scratchpad/scratchpad';
import { codePointLength } from '../text';
import { getterOf } from '../shareable';
import { ToolPatternsSchema } from '../tools/select';
import type { PendingApproval } from '../tools/approval';
import type { UnknownOutcome } from '../tools/idempotency';
import type { AgentCycleOutcome } from './cancel';
import { CycleRecordSchema, clip, keepLast } from './cycle-record';
import { KEPT_REWINDS, type Origin, OriginSchema, type RewindRecord, RewindRecordSchema } from './time-travel';
import { HeartbeatTimeoutsSchema } from '../cycle/liveness';

/** Notices the agent keeps, newest last. */
export const KEPT_NOTICES = 20;
/** Models whose usage is counted apart; more are summed under {@link OTHER_MODELS}. */
export const MAX_MODELS_COUNTED = 20;
export const OTHER_MODELS = 'other models';

/** Longest chat message, in characters; directives share it (the cycle's input defines it). */
export { MAX_MESSAGE_CHARS };

/** How an agent runs its cycles; set at first start, changed with the `configure` update. */
export const AgentSettingsSchema = getterOf(
  z.object({
    model: z.string().max(1000).optional(),
    reflectModel: z.string().max(1000).optional(),
    twoPhase: z.boolean().default(true),
    maxIterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS),
    budgetChars: z.number().int().min(1000).max(200_000).default(DEFAULT_BUDGET_CHARS),
    /** Continue-as-new after this many cycles in one run, or earlier when Temporal suggests it. */
    continueAsNewEvery: z.number().int().min(1).max(10_000).default(100),
    /** Tool names and globs offered to the agent; absent (or null, from `configure --all-tools`): the default. */
    tools: ToolPatternsSchema().nullish(),
    /**
     * How long the provider keeps the prompt's cached prefix. Absent: 5 minutes, and 1 hour for a cycle a schedule
     * woke, since the next wake is rarely minutes away (workflows/agent/child-cycle.ts).
     */
    cacheTtl: CacheTtlSchema().optional(),
    /**
     * Tool names and globs whose calls wait for a person, added to the worker's policy (which the agent cannot waive:
     * removing a pattern here only removes the agent's own).
     */
    approve: ToolPatternsSchema().nullish(),
    /** How long a call waits for a decision before it is denied; absent, 24 hours (core/tools/approval.ts). */
    approvalTimeoutMs: z.number().int().min(1000).max(MAX_APPROVAL_TIMEOUT_MS).optional(),
    /** Most output tokens per model call, by phase (respond, reflect, task); absent phases take the defaults. */
    maxOutputTokens: OutputCapsSchema().optional(),
    /** Heartbeat timeouts by activity kind (model, tool, verification): how soon a dead worker's call moves on. */
    heartbeatTimeoutMs: HeartbeatTimeoutsSchema().optional(),
  }),
);
export type AgentSettings = z.output<ReturnType<typeof AgentSettingsSchema>>;

/**
 * The cache lifetime a cycle's input carries: the agent's setting, else an hour for a cycle a schedule woke (the next
 * wake is rarely within five minutes), else none, the provider's default.
 */
export function cacheTtlInput(settings: Pick<AgentSettings, 'cacheTtl'>, trigger: Trigger): { cacheTtl?: CacheTtl } {
  const cacheTtl = settings.cacheTtl ?? (trigger === 'schedule' ? '1h' : undefined);
  return cacheTtl ? { cacheTtl } : {};
}

export {
  CYCLES_BUDGET_BYTES,
  type CycleRecord,
  CycleRecordSchema,
  KEPT_CYCLES,
  cycleRecordOf,
  keepLast,
  rememberCycle,
  turnsSinceMemoryChanged,
  unknownOutcomesOf,
} from './cycle-record';
export { type AgentCycleOutcome, type CancelCycleArgs, CancelCycleArgsSchema } from './cancel';

export const DirectiveRecordSchema = getterOf(z.object({ text: z.string(), cycleId: z.string().nullable() }));
export type DirectiveRecord = z.infer<ReturnType<typeof DirectiveRecordSchema>>;

/** What the agent workflow starts with, and what it carries across continue-as-new. */
export const AgentInputSchema = getterOf(
  z.object({
    agentId: z.string().min(1),
    purpose: z.string().optional(),
    scratchpad: ScratchpadSchema().optional(),
    settings: AgentSettingsSchema().default(AgentSettingsSchema().parse({})),
    /** A fork's origin (`scratchpad fork`): kept for the agent's life, shown by `status` and `export`. */
    origin: OriginSchema().optional(),
    handover: z
      .object({
        cycleCount: z.number().int().nonnegative(),
        cycles: z.array(CycleRecordSchema()),
        heldDirectives: z.array(z.string()),
        directiveLog: z.array(DirectiveRecordSchema()),
        usageByModel: z.record(z.string(), UsageSchema()),
        runs: z.number().int().nonnegative(),
        pendingWake: z.boolean().default(false),
        notices: z.array(z.string()).max(KEPT_NOTICES).optional(),
        rewinds: z.array(RewindRecordSchema()).max(KEPT_REWINDS).optional(),
      })
      .optional(),
  }),
);
export type AgentInput = z.input<ReturnType<typeof AgentInputSchema>>;
export type ParsedAgentInput = z.output<ReturnType<typeof AgentInputSchema>>;

/** Non-blank text of at most `max` characters, counted by code point (an emoji is one). */
function characters(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .refine((text) => codePointLength(text) <= max, { message: `at most ${max} characters` });
}

/** `model`: this turn's model instead of the agent's (the worker resolves it against its allow-list). */
export const SendArgsSchema = getterOf(
  z.object({ message: characters(MAX_MESSAGE_CHARS), model: z.string().min(1).max(1000).optional() }),
);
export { DirectiveTextSchema } from '../cycle/input';
export const EnqueueArgsSchema = getterOf(
  z
    .object({
      tasks: z.array(characters(5000)).default([]),
      goals: z.array(characters(5000)).default([]),
    })
    .refine((value) => value.tasks.length + value.goals.length > 0, { message: 'give at least one task or goal' }),
);
export const RunCycleArgsSchema = getterOf(
  z.object({
    tasks: z.array(characters(5000)).default([]),
    maxIterations: z.number().int().min(1).max(200).optional(),
    model: z.string().optional(),
    /** Tool names and globs for this cycle only, instead of the agent's. */
    tools: ToolPatternsSchema().optional(),
    /** `--prior-scratchpad`: text appended at the bottom of the cycle's user message (cut at 2,000). */
    priorScratchpad: z.string().max(100_000).optional(),
  }),
);
export const InjectArgsSchema = getterOf(
  z.object({
    section: z.enum(UPDATE_KEYS as unknown as [string, ...string[]]),
    content: z.string(),
  }),
);
export const WakeArgsSchema = getterOf(
  z
    .object({ tasks: z.array(characters(5000)).default([]), trigger: TriggerSchema().default('manual') })
    .default({ tasks: [], trigger: 'manual' }),
);

export type SendArgs = z.input<ReturnType<typeof SendArgsSchema>>;
export type EnqueueArgs = z.input<ReturnType<typeof EnqueueArgsSchema>>;
export type RunCycleArgs = z.input<ReturnType<typeof RunCycleArgsSchema>>;
export type InjectArgs = z.input<ReturnType<typeof InjectArgsSchema>>;
export type WakeArgs = z.input<ReturnType<typeof WakeArgsSchema>>;

/**
 * A chat turn's answer, given as soon as respond ends (the reply first): `outcome` is respond's — `completed`, or
 * `max_iterations` — `failed` only when respond itself failed, and `cancelled` when the turn was cancelled first. Reflect
 * runs after; a reflect that fails shows in the agent's notes and cycle record, not here.
 */
export interface SendResult {
  reply: string;
  cycleId: string;
  outcome: AgentCycleOutcome;
  error?: string;
}

/** A streamed chat turn, once its cycle has started: the cycle whose `turnStream` query has the reply. */
export interface TurnStart {
  cycleId: string;
}

export interface AgentStatus {
  agentId: string;
  cycleCount: number;
  running: { cycleId: string; trigger: string } | null;
  queued: number;
  heldDirectives: string[];
  usage: z.infer<ReturnType<typeof UsageSchema>>;
  costUsd: number | null;
  settings: AgentSettings;
  runs: number;
  /** What the agent refused or dropped lately (a signal has no caller to tell), newest last. */
  notices: string[];
  /** The agent and cycle a forked agent started from. */
  origin?: Origin;
  /** The agent's rewinds to earlier cycles, newest last. */
  rewinds?: RewindRecord[];
  /** Calls its cycles wait on for a person's decision; absent when none waits. */
  approvals?: PendingApproval[];
  /** The model that answered the last cycle's last call, when the first of its list had failed for good. */
  fallbackModel?: string;
  /** How many of the latest cycles in a row left the memory as it was (notes aside). */
  turnsSinceMemoryChanged?: number;
  /** Why the last chat turn's reflect made no update, while no later cycle changed the memory. */
  lastNoUpdate?: string;
  /** Archive pointers whose entries the last cycle's worker could not find in its observation store. */
  missingArchives?: string[];
  /** Calls of the remembered cycles that may or may not have taken effect (their worker died); absent when none. */
  unknownOutcomes?: UnknownOutcome[];
}

/** `notices` with `text` added, newest last, within {@link KEPT_NOTICES}. */
export function withNotice(notices: readonly string[], text: string, at: Date): string[] {
  return keepLast([...notices, `${at.toISOString()} ${clip(text, 300)}`], KEPT_NOTICES);
}

/**
 * Usage by model with at most {@link MAX_MODELS_COUNTED} keys: a client may name a model per cycle, and this map
 * rides every continue-as-new.
 */
export function boundedUsageByModel(byModel: Readonly<Record<string, Usage>>): Record<string, Usage> {
  const entries = Object.entries(byModel);
  if (entries.length <= MAX_MODELS_COUNTED) return { ...byModel };
  const kept = Object.fromEntries(entries.slice(0, MAX_MODELS_COUNTED - 1));
  const rest = entries.slice(MAX_MODELS_COUNTED - 1).reduce((sum, [, usage]) => addUsage(sum, usage), ZERO_USAGE);
  return { ...kept, [OTHER_MODELS]: rest };
}
