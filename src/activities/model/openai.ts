import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { type Message, type ModelResponse, type ToolCall, contentText } from '../../core/cycle/model';
import { flattenToolUse } from '../../core/cycle/flatten-messages';
import { ModelError } from '../../common/failure-types';
import { toModelFailure } from './errors';
import { excerpt } from './excerpt';
import { envelopeSystem, envelopeToolCalls, speaksEnvelope } from './envelope';
import { jsonProtocolSystem } from './json-protocol';
import type { ModelProvider, ProviderRequest } from './provider';
import { SYSTEM_PROMPTS } from './system-prompts';

/**
 * How a server is asked for calls: `tools`, native tool calling (vLLM, Ollama, llama.cpp, LM Studio); `text`, the
 * JSON text protocol (and the staged runs' envelope) for a server without tool calling (`openai:MODEL@URL#text`).
 */
export type OpenAIProtocol = 'tools' | 'text';

/** Where an OpenAI-compatible chat-completions server listens, and how to talk to it. */
export interface OpenAICompatibleOptions {
  model: string;
  /** Up to and including `/v1`, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  apiKey?: string;
  /** Per-request client timeout; the activity's start-to-close timeout still bounds the attempt. */
  timeoutMs?: number;
  protocol?: OpenAIProtocol;
}

function toolChoiceOf(choice: ProviderRequest['toolChoice']): ChatCompletionToolChoiceOption {
  if (typeof choice === 'object') return { type: 'function', function: { name: choice.name } };
  return choice === 'any' ? 'required' : 'auto';
}

/** The model's tool calls; arguments that are not a JSON object stay a string, for the parser to refuse by name. */
function toolCallsOf(message: ChatCompletion.Choice['message']): ToolCall[] {
  return (message.tool_calls ?? []).flatMap((call) => {
    if (call.type !== 'function') return [];
    let input: unknown = call.function.arguments;
    try {
      input = JSON.parse(call.function.arguments || '{}');
    } catch {
      // Left as the raw text: the cycle notes a parse error the model can correct.
    }
    return [{ id: call.id, name: call.function.name, input }];
  });
}

/**
 * A message in Chat Completions' shape: calls as `tool_calls`, each result a `role: "tool"` message. Blocks join into
 * one text: these servers cache an unchanged prefix on their own, and the prompt's order keeps it unchanged.
 */
function chatMessage(message: Message): ChatCompletionMessageParam {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role === 'user') return { role: 'user', content: contentText(message.content) };
  if (!message.toolCalls) return { role: 'assistant', content: message.content };
  return {
    role: 'assistant',
    // Servers take null beside tool calls; some refuse an empty string.
    content: message.content === '' ? null : message.content,
    tool_calls: message.toolCalls.map(({ id, name, input }) => ({
      id,
      type: 'function' as const,
      // Arguments that were not JSON go back as the model wrote them.
      function: { name, arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}) },
    })),
  };
}

/**
 * A local or self-hosted model over chat completions, through the official `openai` SDK with its retries off
 * (Temporal retries). Native tool calling by default; the JSON text protocol where a server has none.
 */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly spec: string;
  private readonly client: OpenAI;
  private readonly protocol: OpenAIProtocol;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.protocol = options.protocol ?? 'tools';
    this.spec = `openai:${options.model}@${options.baseURL}${this.protocol === 'text' ? '#text' : ''}`;
    this.client = new OpenAI({
      baseURL: options.baseURL.replace(/\/+$/, ''),
      // Local servers want no key; the SDK insists on one, so without a key none is sent.
      apiKey: options.apiKey ?? 'none',
      ...(options.apiKey === undefined && { defaultHeaders: { authorization: null } }),
      maxRetries: 0,
      // Never the worker's OPENAI_ORG_ID / OPENAI_PROJECT_ID, which the SDK would send to whatever server this is.
      organization: null,
      project: null,
    });
  }

  async complete(request: ProviderRequest, signal?: AbortSignal): Promise<ModelResponse> {
    let completion: ChatCompletion;
    // The client timeout is a signal of its own, so a timeout is told apart from the activity's cancellation.
    const timeout = this.options.timeoutMs ? AbortSignal.timeout(this.options.timeoutMs) : undefined;
    const requestSignal = signal && timeout ? AbortSignal.any([signal, timeout]) : (signal ?? timeout);
    try {
      completion = await this.client.chat.completions.create(this.params(request), { signal: requestSignal });
    } catch (error) {
      // On cancellation rethrow the activity's reason so the worker reports it as cancelled.
      if (signal?.aborted) throw signal.reason;
      if (timeout?.aborted) {
        throw ApplicationFailure.create({
          message: `timed out calling ${this.spec} after ${this.options.timeoutMs} ms`,
          type: ModelError.Timeout,
        });
      }
      throw this.failure(error, request);
    }
    return this.toModelResponse(completion, request);
  }

  /** The request body: the system prompt, the messages, and the offered tools when the server calls them natively. */
  params(request: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
    const native = this.protocol === 'tools';
    let system = SYSTEM_PROMPTS[request.system];
    if (!native) system = speaksEnvelope(request) ? envelopeSystem(request) : jsonProtocolSystem(request);
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      ...(native ? request.messages.map(chatMessage) : flattenToolUse(request.messages)),
    ];
    const tools = native ? request.tools : [];
    return {
      model: this.options.model,
      messages,
      max_tokens: request.maxTokens,
      temperature: 0,
      ...(tools.length > 0 && {
        tools: tools.map(({ name, description, inputSchema }) => ({
          type: 'function' as const,
          function: { name, description, parameters: inputSchema },
        })),
        tool_choice: toolChoiceOf(request.toolChoice),
      }),
    };
  }

  private failure(error: unknown, request: ProviderRequest): ApplicationFailure {
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const body = error.error as { message?: unknown } | string | undefined;
      const apiMessage = typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : null;
      const message = excerpt(error.message);
      const failure = toModelFailure(
        { status: error.status, headers: error.headers, message, apiMessage: apiMessage && excerpt(apiMessage) },
        this.spec,
      );
      // A server without tool calling refuses the `tools` field; say how to use it anyway.
      const aboutTools = /tool/i.test(apiMessage ?? message) && error.status >= 400 && error.status < 500;
      if (aboutTools && this.protocol === 'tools' && request.tools.length > 0) {
        return ApplicationFailure.nonRetryable(
          `${failure.message}. If this server has no tool calling, use the JSON text protocol: ` +
            `openai:${this.options.model}@${this.options.baseURL}#text`,
          ModelError.BadRequest,
        );
      }
      return failure;
    }
    // By name, not instanceof: the JSON parser's errors may come from another realm (tests run in a vm context).
    if ((error as Error | null)?.name === 'SyntaxError') {
      return ApplicationFailure.nonRetryable(
        `malformed chat completion from ${this.spec} (expected choices[0].message.content or tool_calls): ` +
          `not JSON: ${excerpt((error as Error).message)}`,
        ModelError.BadResponse,
      );
    }
    return toModelFailure(error, this.spec);
  }

  private toModelResponse(completion: ChatCompletion, request: ProviderRequest): ModelResponse {
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    const message = choice?.message;
    const text = message?.content;
    const calls = message && this.protocol === 'tools' ? toolCallsOf(message) : [];
    if (!message || (typeof text !== 'string' && calls.length === 0)) {
      const quoted = excerpt(JSON.stringify(completion ?? null));
      throw ApplicationFailure.nonRetryable(
        `malformed chat completion from ${this.spec} (expected choices[0].message.content or tool_calls): ${quoted}`,
        ModelError.BadResponse,
      );
    }
    const content = typeof text === 'string' ? text : '';
    const usage = completion.usage;
    const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
    return {
      text: content,
      toolCalls: this.protocol === 'text' && speaksEnvelope(request) ? envelopeToolCalls(content, request) : calls,
      stopReason: choice?.finish_reason ?? null,
      usage: {
        // Chat completions count cached prompt tokens inside prompt_tokens; here they are counted apart, as cache reads.
        inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
        outputTokens: usage?.completion_tokens ?? 0,
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
      },
      model: completion.model || this.options.model,
    };
  }
}
