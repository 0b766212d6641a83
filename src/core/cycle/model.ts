import { z } from 'zod';
import { getterOf } from '../shareable';
import { MAX_OUTPUT_TOKENS } from './output-caps';
import { MAX_MODEL_LIST } from './model-list';

const MAX_FALLBACK = MAX_MODEL_LIST - 1;

/** Most characters of one message's text: far above a scratchpad, a prompt or a reply, yet bounded. */
export const MAX_MESSAGE_CONTENT_CHARS = 1_000_000;
/** Most messages of one request: a chat turn of the most iterations, each with the most calls, fits. */
export const MAX_REQUEST_MESSAGES = 20_000;
/** Most calls one assistant message carries back to the model; a reply with more keeps its first ones in history. */
export const MAX_HISTORY_TOOL_CALLS = 64;
/** Most characters of a tool call's id or name as the model gave it. */
export const MAX_TOOL_CALL_ID_CHARS = 1000;
/** Most characters of a tool call's arguments as JSON. */
export const MAX_TOOL_CALL_INPUT_CHARS = 1_000_000;

/** Most blocks one user message is split into: each line of a scratchpad's Known makes one. */
export const MAX_CONTENT_BLOCKS = 1000;

const text = z.string().max(MAX_MESSAGE_CONTENT_CHARS);
const callId = z.string().min(1).max(MAX_TOOL_CALL_ID_CHARS);

/**
 * A stretch of a user message's text. `cache` marks the end of a prefix that later requests repeat: Anthropic gets a
 * cache breakpoint there; other providers see only the text, whose unchanged prefix they cache on their own.
 */
export interface TextBlock {
  text: string;
  cache?: true;
}
/** A user message's text: whole, or in blocks that join to it. */
export type MessageContent = string | TextBlock[];

/** The text of a message's content, its blocks joined. */
export function contentText(content: string | readonly TextBlock[]): string {
  return typeof content === 'string' ? content : content.map((block) => block.text).join('');
}

const userContent = z
  .union([
    text,
    z
      .array(z.object({ text, cache: z.literal(true).optional() }))
      .min(1)
      .max(MAX_CONTENT_BLOCKS),
  ])
  .refine((content) => typeof content === 'string' || contentText(content).length <= MAX_MESSAGE_CONTENT_CHARS, {
    message: `a message over ${MAX_MESSAGE_CONTENT_CHARS} characters`,
  });

/** Characters of a tool call's arguments as JSON, as providers send them. */
export function toolInputChars(input: unknown): number {
  return (JSON.stringify(input ?? {}) ?? '').length;
}

const HistoryToolCallSchema = z.object({
  id: callId,
  name: callId,
  input: z.unknown().refine((input) => toolInputChars(input) <= MAX_TOOL_CALL_INPUT_CHARS, {
    message: `tool call arguments over ${MAX_TOOL_CALL_INPUT_CHARS} characters of JSON`,
  }),
});

/**
 * One message of a request, provider-neutral: user text (whole, or in blocks marking cacheable prefixes); assistant
 * text, with the tool calls it made (ids as the model gave them); or one call's result (`tool`). A plain
 * `{role, content}` is a user or assistant message.
 */
export const MessageSchema = getterOf(
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('user'), content: userContent }),
    z.object({
      role: z.literal('assistant'),
      content: text,
      toolCalls: z.array(HistoryToolCallSchema).min(1).max(MAX_HISTORY_TOOL_CALLS).optional(),
    }),
    z.object({
      role: z.literal('tool'),
      toolCallId: callId,
      name: callId,
      content: text,
      /** The call failed (a refusal, a tool error): Anthropic marks the result `is_error`. */
      isError: z.boolean().optional(),
    }),
  ]),
);
export type Message = z.infer<ReturnType<typeof MessageSchema>>;
/** A message with no tool use, as the JSON text protocol and the scripted model read requests. */
export type TextMessage = { role: 'user' | 'assistant'; content: string };

/**
 * Why a request's tool messages do not pair with its calls, or undefined: each `tool` message answers a call of the
 * assistant message before it, and every call is answered before the next assistant message (both providers'
 * rule, so a request breaking it is refused here rather than by the server).
 */
export function toolUseIssue(messages: readonly Message[]): string | undefined {
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      if (open.size > 0) return `message ${index}: calls ${[...open].join(', ')} have no tool result`;
      open = new Set(message.toolCalls?.map((call) => call.id));
      if (open.size !== (message.toolCalls?.length ?? 0)) return `message ${index}: tool call ids repeat`;
    } else if (message.role === 'tool' && !open.delete(message.toolCallId)) {
      return `message ${index}: tool result for ${message.toolCallId}, which the assistant message before did not call`;
    }
  }
  return open.size > 0 ? `calls ${[...open].join(', ')} have no tool result` : undefined;
}

/** Characters a request's messages put before the model: text, tool results, and each call's name and arguments. */
export function messagesChars(messages: readonly Message[]): number {
  return messages.reduce(
    (sum, message) =>
      sum +
      contentText(message.content).length +
      (message.role === 'assistant'
        ? (message.toolCalls ?? []).reduce((calls, call) => calls + call.name.length + toolInputChars(call.input), 0)
        : 0),
    0,
  );
}

/** How long a provider keeps a cached prompt prefix: 5 minutes, or 1 hour for agents whose turns come further apart. */
export const CacheTtlSchema = getterOf(z.enum(['5m', '1h']));
export type CacheTtl = z.infer<ReturnType<typeof CacheTtlSchema>>;

/**
 * The id of a system prompt. The kernel's own are `cycle`, `respond`, `respond_single` and `reflect`; features add
 * theirs, and the worker refuses an id it has no prompt for (activities/model/system-prompts.ts).
 */
export const SystemPromptIdSchema = getterOf(z.string().regex(/^[a-z][a-z_]{0,39}$/));
export type SystemPromptId = z.infer<ReturnType<typeof SystemPromptIdSchema>>;

/**
 * What a workflow asks of `callModel`. The system prompt and tool schemas are named, not
 * carried, so every iteration's history stays small; the activity resolves them.
 */
export const ModelRequestSchema = getterOf(
  z.object({
    system: SystemPromptIdSchema(),
    messages: z
      .array(MessageSchema())
      .min(1)
      .max(MAX_REQUEST_MESSAGES)
      .superRefine((messages, context) => {
        const issue = toolUseIssue(messages);
        if (issue) context.addIssue({ code: 'custom', message: issue });
      }),
    tools: z.array(z.string()),
    toolChoice: z.union([z.enum(['auto', 'any']), z.object({ name: z.string() })]).default('auto'),
    /** Provider spec overriding the worker's default, e.g. a cheaper reflect model; `a,b` is a fallback list. */
    model: z.string().optional(),
    /** Which model of that list (or of the worker's default list) to ask, counting from 0; absent, the first. */
    fallback: z.int().min(1).max(MAX_FALLBACK).optional(),
    /** How long the provider keeps the cached prefix (Anthropic: 5 minutes by default, or 1 hour). */
    cacheTtl: CacheTtlSchema().optional(),
    maxTokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS).default(2048),
    /**
     * The reply's text goes to the calling workflow's turn stream as it comes, as this model call of the turn
     * (design.md, Streaming); absent, the reply comes back whole only.
     */
    stream: z.number().int().min(1).max(10_000).optional(),
  }),
);

export type ModelRequest = z.input<ReturnType<typeof ModelRequestSchema>>;

// Far beyond what an agent spends on one model in its lifetime (its totals ride every continue-as-new), yet low
// enough that a forged write cannot add absurd amounts, nor make sums inexact.
/** Most tokens one usage field may count. */
export const MAX_USAGE_TOKENS = 1e12;
const tokens = z.number().int().nonnegative().max(MAX_USAGE_TOKENS);

/** Token counts of a call, a cycle, or a total: the one usage schema, wherever usage crosses a boundary. */
export const UsageSchema = getterOf(
  z.object({ inputTokens: tokens, outputTokens: tokens, cacheReadTokens: tokens, cacheWriteTokens: tokens }),
);
export type Usage = z.infer<ReturnType<typeof UsageSchema>>;

/** Usage by model as a research worker reports it with its last write: short names, and few of them. */
export const UsageByModelSchema = getterOf(
  z
    .record(z.string().max(200), UsageSchema())
    .refine((byModel) => Object.keys(byModel).length <= 20, { message: 'at most 20 models' }),
);

export const ToolCallSchema = getterOf(z.object({ id: z.string(), name: z.string(), input: z.unknown() }));
export type ToolCall = z.infer<ReturnType<typeof ToolCallSchema>>;

export const ModelResponseSchema = getterOf(
  z.object({
    text: z.string(),
    toolCalls: z.array(ToolCallSchema()),
    stopReason: z.string().nullable(),
    usage: UsageSchema(),
    model: z.string(),
    /** The reply came only after a corrective retry: the first lacked the call the request forced. */
    corrected: z.boolean().optional(),
    /** The spec of the model list that answered, when the list names more than one. */
    spec: z.string().optional(),
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
