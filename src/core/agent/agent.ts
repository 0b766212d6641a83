import { z } from 'zod';
import { DEFAULT_BUDGET_CHARS } from '../scratchpad/budget';
import {
  CycleOutcomeSchema,
  type CycleResult,
  DEFAULT_MAX_ITERATIONS,
  MAX_MESSAGE_CHARS,
  type Trigger,
  TriggerSchema,
} from '../cycle/input';
import { UsageSchema } from '../cycle/model';
import { ScratchpadSchema, UPDATE_KEYS } from '../scratchpad/scratchpad';
import { codePointLength } from '../text';
import { shareable } from '../shareable';
import { ToolPatternsSchema } from '../tools/select';

/** Longest chat message, in characters; directives share it (the cycle's input defines it). */
export { MAX_MESSAGE_CHARS };

/** How an agent runs its cycles; set at first start, changed with the `configure` update. */
export const AgentSettingsSchema = shareable(
  z.object({
    model: z.string().optional(),
    reflectModel: z.string().optional(),
    twoPhase: z.boolean().default(true),
    maxIterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS),
    budgetChars: z.number().int().min(1000).max(200_000).default(DEFAULT_BUDGET_CHARS),
    /** Continue-as-new after this many cycles in one run, or earlier when Temporal suggests it. */
    continueAsNewEvery: z.number().int().min(1).max(10_000).default(100),
    /** Tool names and globs offered to the agent; absent (or null, from `configure --all-tools`): the default. */
    tools: ToolPatternsSchema().nullish(),
  }),
);
export type AgentSettings = z.output<ReturnType<typeof AgentSettingsSchema>>;

/** One cycle as the agent remembers it. */
export const CycleRecordSchema = shareable(
  z.object({
    cycleId: z.string(),
    trigger: TriggerSchema(),
    outcome: CycleOutcomeSchema(),
    iterations: z.number(),
    usage: UsageSchema(),
    directives: z.array(z.string()),
    error: z.string().optional(),
  }),
);
export type CycleRecord = z.infer<ReturnType<typeof CycleRecordSchema>>;

export const DirectiveRecordSchema = shareable(z.object({ text: z.string(), cycleId: z.string().nullable() }));
export type DirectiveRecord = z.infer<ReturnType<typeof DirectiveRecordSchema>>;

/** What the agent workflow starts with, and what it carries across continue-as-new. */
export const AgentInputSchema = shareable(
  z.object({
    agentId: z.string().min(1),
    purpose: z.string().optional(),
    scratchpad: ScratchpadSchema().optional(),
    settings: AgentSettingsSchema().default(AgentSettingsSchema().parse({})),
    handover: z
      .object({
        cycleCount: z.number().int().nonnegative(),
        cycles: z.array(CycleRecordSchema()),
        heldDirectives: z.array(z.string()),
        directiveLog: z.array(DirectiveRecordSchema()),
        usageByModel: z.record(z.string(), UsageSchema()),
        runs: z.number().int().nonnegative(),
        pendingWake: z.boolean().default(false),
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

export const SendArgsSchema = shareable(z.object({ message: characters(MAX_MESSAGE_CHARS) }));
export { DirectiveTextSchema } from '../cycle/input';
export const EnqueueArgsSchema = shareable(
  z
    .object({
      tasks: z.array(characters(5000)).default([]),
      goals: z.array(characters(5000)).default([]),
    })
    .refine((value) => value.tasks.length + value.goals.length > 0, { message: 'give at least one task or goal' }),
);
export const RunCycleArgsSchema = shareable(
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
export const InjectArgsSchema = shareable(
  z.object({
    section: z.enum(UPDATE_KEYS as unknown as [string, ...string[]]),
    content: z.string(),
  }),
);
export const WakeArgsSchema = shareable(
  z
    .object({ tasks: z.array(characters(5000)).default([]), trigger: TriggerSchema().default('manual') })
    .default({ tasks: [], trigger: 'manual' }),
);

export type SendArgs = z.input<ReturnType<typeof SendArgsSchema>>;
export type EnqueueArgs = z.input<ReturnType<typeof EnqueueArgsSchema>>;
export type RunCycleArgs = z.input<ReturnType<typeof RunCycleArgsSchema>>;
export type InjectArgs = z.input<ReturnType<typeof InjectArgsSchema>>;
export type WakeArgs = z.input<ReturnType<typeof WakeArgsSchema>>;

export interface SendResult {
  reply: string;
  cycleId: string;
  outcome: z.infer<ReturnType<typeof CycleOutcomeSchema>>;
  error?: string;
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
}

/** Cycles the agent remembers, oldest dropped first. */
export const KEPT_CYCLES = 50;

/** The last `count` items of `items`. */
export function keepLast<T>(items: readonly T[], count: number): T[] {
  return items.slice(Math.max(0, items.length - count));
}

/** How the agent remembers a finished cycle, with the directives it showed the model. */
export function cycleRecordOf(result: CycleResult, trigger: Trigger, directives: string[]): CycleRecord {
  return {
    cycleId: result.cycleId,
    trigger,
    outcome: result.outcome,
    iterations: result.iterations,
    usage: result.usage,
    directives,
    ...(result.error ? { error: result.error } : {}),
  };
}
