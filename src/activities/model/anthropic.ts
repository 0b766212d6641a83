import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message as AnthropicMessage,
  MessageContentParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolChoice,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { Message, ModelResponse } from '../../core/cycle/model';
import { SYSTEM_PROMPTS } from './system-prompts';
import { toModelFailure } from './errors';
import type { ModelProvider, ProviderRequest } from './provider';

/** How to reach the Anthropic Messages API. */
export interface AnthropicProviderOptions {
  model: string;
  apiKey: string;
  baseURL?: string;
  /** Per-request client timeout; the activity's start-to-close timeout still bounds the attempt. */
  timeoutMs?: number;
}

function toolChoice(choice: ProviderRequest['toolChoice']): ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', name: choice.name };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One message's content in the Messages API: text, or blocks when it carries tool use. */
function contentOf(message: Message): MessageContentParam {
  if (message.role === 'tool') {
    const result: ToolResultBlockParam = {
      type: 'tool_result',
      tool_use_id: message.toolCallId,
      content: message.content,
    };
    return [message.isError ? { ...result, is_error: true } : result];
  }
  if (message.role === 'user' || !message.toolCalls) return message.content;
  return [
    // The API refuses an empty text block.
    ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
    // tool_use input must be an object; only another provider's unparsed arguments could be anything else.
    ...message.toolCalls.map(({ id, name, input }): ContentBlockParam => ({
      type: 'tool_use',
      id,
      name,
      input: isObject(input) ? input : {},
    })),
  ];
}

function blocksOf(content: MessageContentParam): ContentBlockParam[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/**
 * The messages in the Messages API's shape: tool calls as `tool_use` blocks, results as `tool_result` blocks of a user
 * message. Roles must alternate, so a message of the same role as the one before joins it: consecutive results
 * become one user message, and a directive after them a text block after the results.
 */
export function anthropicMessages(messages: readonly Message[]): MessageParam[] {
  const merged: MessageParam[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = contentOf(message);
    const last = merged.at(-1);
    if (last?.role === role) last.content = [...blocksOf(last.content), ...blocksOf(content)];
    else merged.push({ role, content });
  }
  return merged;
}

/** The Messages API request for one provider request. */
export function messageParams(model: string, request: ProviderRequest): MessageCreateParamsNonStreaming {
  const tools = request.tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    input_schema: inputSchema as Anthropic.Tool.InputSchema,
  }));
  return {
    model,
    max_tokens: request.maxTokens,
    // The system prompt is identical on every iteration, so it (and the tools before it) is cached.
    system: [{ type: 'text', text: SYSTEM_PROMPTS[request.system], cache_control: { type: 'ephemeral' } }],
    messages: anthropicMessages(request.messages),
    ...(tools.length > 0 ? { tools, tool_choice: toolChoice(request.toolChoice) } : {}),
  };
}

function toModelResponse(message: AnthropicMessage): ModelResponse {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const toolCalls = message.content.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, name: block.name, input: block.input }] : [],
  );
  return {
    text,
    toolCalls,
    stopReason: message.stop_reason,
    usage: {
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
      cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
    },
    model: message.model,
  };
}

/** Claude through the official SDK, with native tool use and prompt caching. */
export class AnthropicProvider implements ModelProvider {
  readonly spec: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.spec = `anthropic:${options.model}`;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs,
      // Disable provider-side retries; let Temporal own retry policy at the activity layer.
      maxRetries: 0,
    });
  }

  async complete(request: ProviderRequest, signal?: AbortSignal): Promise<ModelResponse> {
    const params = messageParams(this.options.model, request);
    try {
      return toModelResponse(await this.client.messages.create(params, { signal }));
    } catch (error) {
      // On cancellation rethrow the activity's reason so the worker reports it as cancelled.
      if (signal?.aborted) throw signal.reason;
      throw toModelFailure(error, this.spec);
    }
  }
}
