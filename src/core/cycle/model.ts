import { z } from 'zod';
import { shareable } from '../shareable';

export const MessageSchema = shareable(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }));
export type Message = z.infer<ReturnType<typeof MessageSchema>>;

export const SystemPromptIdSchema = shareable(
  z.enum([
    'cycle',
    'respond',
    'respond_single',
    'reflect',
    'staged',
    'staged_plan',
    'research_worker',
    'research_strategy',
  ]),
);
export type SystemPromptId = z.infer<ReturnType<typeof SystemPromptIdSchema>>;

/**
 * What a workflow asks of `callModel`. The system prompt and tool schemas are named, not
 * carried, so every iteration's history stays small; the activity resolves them.
 */
export const ModelRequestSchema = shareable(
  z.object({
    system: SystemPromptIdSchema(),
    messages: z.array(MessageSchema()).min(1),
    tools: z.array(z.string()),
    toolChoice: z.union([z.enum(['auto', 'any']), z.object({ name: z.string() })]).default('auto'),
    /** Provider spec overriding the worker's default, e.g. a cheaper reflect model. */
    model: z.string().optional(),
    maxTokens: z.number().int().positive().default(2048),
  }),
);
export type ModelRequest = z.input<ReturnType<typeof ModelRequestSchema>>;

// Far beyond what an agent spends on one model in its lifetime (its totals ride every continue-as-new), yet low
// enough that a forged write cannot add absurd amounts, nor make sums inexact.
/** Most tokens one usage field may count. */
export const MAX_USAGE_TOKENS = 1e12;
const tokens = z.number().int().nonnegative().max(MAX_USAGE_TOKENS);

/** Token counts of a call, a cycle, or a total: the one usage schema, wherever usage crosses a boundary. */
export const UsageSchema = shareable(
  z.object({ inputTokens: tokens, outputTokens: tokens, cacheReadTokens: tokens, cacheWriteTokens: tokens }),
);
export type Usage = z.infer<ReturnType<typeof UsageSchema>>;

/** Usage by model as a research worker reports it with its last write: short names, and few of them. */
export const UsageByModelSchema = shareable(
  z
    .record(z.string().max(200), UsageSchema())
    .refine((byModel) => Object.keys(byModel).length <= 20, { message: 'at most 20 models' }),
);

export const ToolCallSchema = shareable(z.object({ id: z.string(), name: z.string(), input: z.unknown() }));
export type ToolCall = z.infer<ReturnType<typeof ToolCallSchema>>;

export const ModelResponseSchema = shareable(
  z.object({
    text: z.string(),
    toolCalls: z.array(ToolCallSchema()),
    stopReason: z.string().nullable(),
    usage: UsageSchema(),
    model: z.string(),
  }),
);
export type ModelResponse = z.infer<ReturnType<typeof ModelResponseSchema>>;

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** All usage of a split by model, summed. */
export function totalUsage(byModel: Readonly<Record<string, Usage>>): Usage {
  return Object.values(byModel).reduce(addUsage, ZERO_USAGE);
}

/** `byModel` with `added` counted in, per model; neither argument changes. */
export function mergeUsageByModel(
  byModel: Readonly<Record<string, Usage>>,
  added: Readonly<Record<string, Usage>>,
): Record<string, Usage> {
  const merged = { ...byModel };
  for (const [model, usage] of Object.entries(added)) merged[model] = addUsage(merged[model] ?? ZERO_USAGE, usage);
  return merged;
}

/** The parent's usage with a child's added, in total and by model: a sub-agent's calls are the parent's cost. */
export function withChildUsage(
  parent: { usage: Usage; usageByModel: Readonly<Record<string, Usage>> },
  child: { usage: Usage; usageByModel?: Readonly<Record<string, Usage>> },
): { usage: Usage; usageByModel: Record<string, Usage> } {
  return {
    usage: addUsage(parent.usage, child.usage),
    usageByModel: mergeUsageByModel(parent.usageByModel, child.usageByModel ?? {}),
  };
}
