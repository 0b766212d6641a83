import { z } from 'zod';
import { UsageSchema } from './model';
import { ScratchpadSchema } from './scratchpad';
import { ACTIVITY_TOOLS } from './tools';

export const DEFAULT_MAX_ITERATIONS = 10;

export const CycleOutcomeSchema = z.enum(['completed', 'max_iterations', 'failed']);
export type CycleOutcome = z.infer<typeof CycleOutcomeSchema>;

export const TriggerSchema = z.enum(['task', 'chat', 'schedule', 'manual']);
export type Trigger = z.infer<typeof TriggerSchema>;

/** Input of one `agentCycle` workflow. */
export const CycleInputSchema = z.object({
  agentId: z.string().min(1),
  /** Defaults to the workflow id. */
  cycleId: z.string().min(1).optional(),
  before: ScratchpadSchema,
  trigger: TriggerSchema.default('task'),
  maxIterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS),
  /** Model spec overriding the worker's default. */
  model: z.string().optional(),
  /** Work tools offered to the model. */
  tools: z.array(z.string()).default([...ACTIVITY_TOOLS]),
  /** Attempts per activity before the cycle fails (Temporal retries in between). */
  maxAttempts: z.number().int().min(1).max(20).default(5),
});
export type CycleInput = z.input<typeof CycleInputSchema>;
export type ParsedCycleInput = z.output<typeof CycleInputSchema>;

export const TraceEntrySchema = z.object({
  iteration: z.number(),
  request: z.object({ promptChars: z.number(), tools: z.array(z.string()) }),
  response: z.object({ text: z.string(), toolCalls: z.array(z.string()), stopReason: z.string().nullable() }),
  dispatch: z.enum(['tool', 'update', 'done', 'parse_error', 'unknown_tool']),
  action: z.object({ tool: z.string(), args: z.unknown() }).optional(),
  observation: z.string().optional(),
  error: z.string().optional(),
  usage: UsageSchema,
});
export type TraceEntry = z.infer<typeof TraceEntrySchema>;

/** Result of one cycle: seed 000's after-state (with `last_updated` untouched) and what happened. */
export const CycleResultSchema = z.object({
  agentId: z.string(),
  cycleId: z.string(),
  outcome: CycleOutcomeSchema,
  after: ScratchpadSchema,
  iterations: z.number(),
  usage: UsageSchema,
  error: z.string().optional(),
});
export type CycleResult = z.infer<typeof CycleResultSchema>;
