import type Anthropic from '@anthropic-ai/sdk';
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  Message as AnthropicMessage,
  MessageContentParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolChoice,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { CacheTtl, Message, ModelResponse, TextBlock } from '../../core/cycle/model';
import { systemPrompt } from './system-prompts';
import { toModelFailure } from './errors';
import { anthropicClient } from './sdks';
import type { ModelProvider, ProviderRequest, TextListener } from './provider';

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

/** The API's limit on cache breakpoints in one request, the system prompt's included. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The breakpoint every cached prefix of a request gets: the provider's default lifetime (5 minutes), or an hour. */
export function cacheControl(ttl: CacheTtl | undefined): CacheControlEphemeral {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** Blocks with only whitespace joined to a neighbour, keeping its mark: the API refuses a blank text block. */
function joinBlank(blocks: readonly TextBlock[]): TextBlock[] {
  const joined: TextBlock[] = [];
  let carried: TextBlock | undefined;
  for (const block of blocks) {
    const last = joined.at(-1);
    if (block.text.trim() === '' && last) {
      joined[joined.length - 1] = { text: last.text + block.text, ...((last.cache || block.cache) && { cache: true }) };
    } else if (block.text.trim() === '') {
      carried = { text: (carried?.text ?? '') + block.text, ...((carried?.cache || block.cache) && { cache: true }) };
    } else {
      const cache = carried?.cache || block.cache;
      joined.push({ text: (carried?.text ?? '') + block.text, ...(cache && { cache: true }) });
      carried = undefined;
    }
  }
  return carried ? [...joined, carried] : joined;
}

/** One message's content in the Messages API: text, or blocks when it carries tool use or cache marks. */
function contentOf(message: Message, control: CacheControlEphemeral): MessageContentParam {
  if (message.role === 'tool') {
    const result: ToolResultBlockParam = {
      type: 'tool_result',
      tool_use_id: message.toolCallId,
      content: message.content,
    };
    return [message.isError ? { ...result, is_error: true } : result];
  }
  if (message.role === 'user') {
    if (typeof message.content === 'string') return message.content;
    return joinBlank(message.content).map(({ text, cache }): TextBlockParam => ({
      type: 'text',
      text,
      ...(cache && { cache_control: control }),
    }));
  }
  if (!message.toolCalls) return message.content;
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

type Cacheable = ContentBlockParam & { cache_control?: CacheControlEphemeral | null };

/**
 * The messages in the Messages API's shape: tool calls as `tool_use` blocks, results as `tool_result` blocks of a user
 * message, marked blocks with a cache breakpoint. Roles must alternate, so a message of the same role as the one
 * before joins it: consecutive results become one user message, and a directive after them a text block after the
 * results.
 */
export function anthropicMessages(
  messages: readonly Message[],
  control: CacheControlEphemeral = cacheControl(undefined),
): MessageParam[] {
  const merged: MessageParam[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = contentOf(message, control);
    const last = merged.at(-1);
    if (last?.role === role) last.content = [...blocksOf(last.content), ...blocksOf(content)];
    else merged.push({ role, content });
  }
  return merged;
}

/**
 * Breakpoints in the messages: the marked blocks, and, once a request carries tool use, its last block, since the
 * next iteration of the loop repeats the whole request and adds to it. Past the API's limit the earliest marks go:
 * a later breakpoint's prefix holds theirs, and the provider looks back from it for earlier hits.
 */
function placeBreakpoints(messages: MessageParam[], control: CacheControlEphemeral, loop: boolean): void {
  const last = messages.at(-1);
  if (loop && last) {
    const blocks = blocksOf(last.content) as Cacheable[];
    const tail = blocks.at(-1);
    if (tail) blocks[blocks.length - 1] = { ...tail, cache_control: control } as Cacheable;
    last.content = blocks;
  }
  const marked = messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : (message.content as Cacheable[]).filter((block) => block.cache_control),
  );
  for (const block of marked.slice(0, Math.max(0, marked.length - (MAX_CACHE_BREAKPOINTS - 1)))) {
    delete block.cache_control;
  }
}

/**
 * The Messages API request for one provider request. Breakpoints: after the system prompt (the tools before it ride
 * along), at each block the prompt marks (the scratchpad's stable sections), and at the end of a loop's request.
 */
export function messageParams(model: string, request: ProviderRequest): MessageCreateParamsNonStreaming {
  const tools = request.tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    input_schema: inputSchema as Anthropic.Tool.InputSchema,
  }));
  const control = cacheControl(request.cacheTtl);
  const messages = anthropicMessages(request.messages, control);
  const loop = request.messages.some((message) => message.role === 'tool');
  placeBreakpoints(messages, control, loop);
  return {
    model,
    max_tokens: request.maxTokens,
    system: [{ type: 'text', text: systemPrompt(request.system), cache_control: control }],
    messages,
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
  readonly readsCacheMarks = true;
  private sdkClient?: Anthropic;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.spec = `anthropic:${options.model}`;
  }

  /** The SDK client, made at the first request: a worker that never calls Claude does not load the SDK. */
  private get client(): Anthropic {
    return (this.sdkClient ??= anthropicClient(this.options));
  }

  /**
   * A reply a person reads as it comes goes through the SDK's message stream (`text` events); the whole message it
   * ends with, usage included, is the response, as a request without streaming returns it.
   */
  async complete(request: ProviderRequest, signal?: AbortSignal, onText?: TextListener): Promise<ModelResponse> {
    const params = messageParams(this.options.model, request);
    try {
      if (!onText) return toModelResponse(await this.client.messages.create(params, { signal }));
      const stream = this.client.messages.stream(params, { signal }).on('text', (delta) => onText(delta));
      return toModelResponse(await stream.finalMessage());
    } catch (error) {
      // On cancellation rethrow the activity's reason so the worker reports it as cancelled.
      if (signal?.aborted) throw signal.reason;
      throw toModelFailure(error, this.spec);
    }
  }
}
