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
import { jsonModeOf } from './json-mode';
import type { ModelProvider, ProviderRequest } from './provider';
import { SYSTEM_PROMPTS } from './system-prompts';
import { type ServerInfo, serverInfo } from './server-info';

/**
 * How a server is asked for calls: `tools`, native tool calling (vLLM, Ollama, llama.cpp, LM Studio); `json`,
 * constrained decoding to a JSON Schema of the calls (`response_format: json_schema`); `text`, the JSON text protocol
 * (and the staged runs' envelope) by prompt alone. `auto` probes the server once for the first that works.
 */
export type OpenAIProtocol = 'tools' | 'json' | 'text';
export type OpenAIProtocolChoice = OpenAIProtocol | 'auto';

/** Where an OpenAI-compatible chat-completions server listens, and how to talk to it. */
export interface OpenAICompatibleOptions {
  model: string;
  /** Up to and including `/v1`, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  apiKey?: string;
  /** Per-request client timeout; the activity's start-to-close timeout still bounds the attempt. */
  timeoutMs?: number;
  /** Absent: `auto`. */
  protocol?: OpenAIProtocolChoice;
  /** Told once what `auto` chose, and why. */
  onProtocol?: (spec: string, protocol: OpenAIProtocol, why: string) => void;
  /** The model's context window in tokens, where the server does not say (SCRATCHPAD_CONTEXT_TOKENS). */
  contextTokens?: number;
}

/** A conservative count of the tokens in `chars` characters of prompt: few tokenizers average under 3 per token. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 3);
}

/** Fewest output tokens worth asking for; a prompt that leaves less does not fit. */
const MIN_OUTPUT_TOKENS = 16;

/** A server's refusal of a prompt longer than its context, in llama.cpp's, vLLM's and OpenAI's words. */
function isContextRefusal(status: number, text: string, code: unknown): boolean {
  if (code === 'context_length_exceeded') return true;
  return (
    status === 400 &&
    /exceed(s|ed)? (the )?(available )?context|maximum context length|context (length|window|size)/i.test(text)
  );
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

/** What a server answers for each protocol: a forced call of a tiny tool, then a tiny schema. */
const PROBE_TOOL = {
  type: 'function' as const,
  function: {
    name: 'ping',
    description: 'Answer the ping.',
    parameters: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
};
const PROBE_SCHEMA = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
  additionalProperties: false,
};
const PROBE_MESSAGES: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Call the ping tool.' }];

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A local or self-hosted model over chat completions, through the official `openai` SDK with its retries off
 * (Temporal retries). Unless the spec names a protocol, the first request probes the server once for native tool
 * calling, then constrained decoding, then the prompt alone, and keeps the answer for the worker's life.
 */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly spec: string;
  private readonly client: OpenAI;
  private readonly choice: OpenAIProtocolChoice;
  private chosen?: Promise<OpenAIProtocol>;
  /** The protocol in use once known: the spec's, or what the probe found. */
  protocol?: OpenAIProtocol;
  /** The context window once known: the server's word, else the configured one. */
  contextTokens?: number;
  private info?: Promise<ServerInfo>;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.choice = options.protocol ?? 'auto';
    if (this.choice !== 'auto') this.protocol = this.choice;
    const marked = this.choice === 'auto' ? '' : `#${this.choice}`;
    this.spec = `openai:${options.model}@${options.baseURL}${marked}`;
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

  /**
   * The protocol to use: the spec's, or probed once. A probe that cannot reach the server throws (the activity
   * retries) and is tried again by the next request; an answer, once had, is kept.
   */
  resolveProtocol(signal?: AbortSignal): Promise<OpenAIProtocol> {
    this.chosen ??= this.probe(signal).then(
      ({ protocol, why }) => {
        this.protocol = protocol;
        this.options.onProtocol?.(this.spec, protocol, why);
        return protocol;
      },
      (error: unknown) => {
        this.chosen = undefined;
        throw error;
      },
    );
    return this.chosen;
  }

  /** What the server says about itself, asked once; its context window, else the configured one, is kept. */
  private serverInfo(signal?: AbortSignal): Promise<ServerInfo> {
    const headers: Record<string, string> = this.options.apiKey
      ? { authorization: `Bearer ${this.options.apiKey}` }
      : {};
    this.info ??= serverInfo(this.options.baseURL, this.options.model, headers, signal).then((info) => {
      this.contextTokens = info.contextTokens ?? this.options.contextTokens;
      return info;
    });
    return this.info;
  }

  private async probe(signal?: AbortSignal): Promise<{ protocol: OpenAIProtocol; why: string }> {
    const info = await this.serverInfo(signal);
    const context = this.contextTokens ? `; context ${this.contextTokens} tokens` : '';
    if (this.choice !== 'auto') return { protocol: this.choice, why: `named by the spec${context}` };
    if (info.toolCalls === true) return { protocol: 'tools', why: `${info.source} declares tool calling${context}` };
    const probed = await this.probeCalls(info, signal);
    return { ...probed, why: `${probed.why}${context}` };
  }

  private async probeCalls(info: ServerInfo, signal?: AbortSignal): Promise<{ protocol: OpenAIProtocol; why: string }> {
    // Room for a sentence before the call: some servers let the model speak first.
    const base = { model: this.options.model, messages: PROBE_MESSAGES, max_tokens: 64, temperature: 0 };
    // Named, not `required`: llama.cpp constrains a named choice to the call, and lets `required` answer in prose.
    const forced = { type: 'function' as const, function: { name: PROBE_TOOL.function.name } };
    const declined = info.toolCalls === false;
    const tools = declined
      ? undefined
      : await this.probeRequest({ ...base, tools: [PROBE_TOOL], tool_choice: forced }, signal);
    if (tools?.ok && tools.completion.choices?.[0]?.message?.tool_calls?.some((call) => call.type === 'function')) {
      return { protocol: 'tools', why: 'the server made a forced tool call' };
    }
    const toolsWhy = !tools
      ? `${info.source} declares no tool calling`
      : tools.ok
        ? 'a forced tool call came back as text'
        : `tools refused (${tools.reason})`;
    const json = await this.probeRequest(
      { ...base, response_format: { type: 'json_schema', json_schema: { name: 'ping', schema: PROBE_SCHEMA } } },
      signal,
    );
    const value = json.ok ? parsedJson(json.completion.choices?.[0]?.message?.content ?? '') : undefined;
    if (typeof (value as { ok?: unknown } | undefined)?.ok === 'boolean') {
      return { protocol: 'json', why: `${toolsWhy}; the server held a reply to a JSON Schema` };
    }
    const jsonWhy = json.ok ? 'a schema-constrained reply did not match' : `json_schema refused (${json.reason})`;
    return { protocol: 'text', why: `${toolsWhy}; ${jsonWhy}` };
  }

  /** One probe request: its completion, or why a server refused it (4xx); anything else fails the call. */
  private async probeRequest(
    params: ChatCompletionCreateParamsNonStreaming,
    signal?: AbortSignal,
  ): Promise<{ ok: true; completion: ChatCompletion } | { ok: false; reason: string }> {
    try {
      return { ok: true, completion: await this.client.chat.completions.create(params, { signal }) };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof OpenAI.APIError && typeof error.status === 'number' && error.status < 500) {
        if (error.status === 401 || error.status === 403 || error.status === 404) throw this.failure(error);
        return { ok: false, reason: `${error.status}: ${excerpt(error.message, 120)}` };
      }
      throw this.failure(error);
    }
  }

  async complete(request: ProviderRequest, signal?: AbortSignal): Promise<ModelResponse> {
    const protocol = await this.resolveProtocol(signal);
    let completion: ChatCompletion;
    // The client timeout is a signal of its own, so a timeout is told apart from the activity's cancellation.
    const timeout = this.options.timeoutMs ? AbortSignal.timeout(this.options.timeoutMs) : undefined;
    const requestSignal = signal && timeout ? AbortSignal.any([signal, timeout]) : (signal ?? timeout);
    try {
      completion = await this.client.chat.completions.create(this.fitted(this.params(request, protocol)), {
        signal: requestSignal,
      });
    } catch (error) {
      // On cancellation rethrow the activity's reason so the worker reports it as cancelled.
      if (signal?.aborted) throw signal.reason;
      if (timeout?.aborted) {
        throw ApplicationFailure.create({
          message: `timed out calling ${this.spec} after ${this.options.timeoutMs} ms`,
          type: ModelError.Timeout,
        });
      }
      throw this.failure(error, request, protocol);
    }
    return this.toModelResponse(completion, request, protocol);
  }

  /** The request body: the system prompt, the messages, and the calls asked for in the protocol's way. */
  params(
    request: ProviderRequest,
    protocol: OpenAIProtocol = this.protocol ?? 'tools',
  ): ChatCompletionCreateParamsNonStreaming {
    const native = protocol === 'tools';
    const json = protocol === 'json' ? jsonModeOf(request) : undefined;
    let system = SYSTEM_PROMPTS[request.system];
    if (json) system = json.system;
    else if (!native) system = speaksEnvelope(request) ? envelopeSystem(request) : jsonProtocolSystem(request);
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
      ...(json && { response_format: { type: 'json_schema', json_schema: { name: json.name, schema: json.schema } } }),
    };
  }

  /**
   * `params` within the context window, where it is known: the output cap lowered to what the prompt leaves, and a
   * prompt that leaves too little refused as `ModelError.ContextExceeded` before it is sent (the cycle archives and
   * asks again).
   */
  fitted(params: ChatCompletionCreateParamsNonStreaming): ChatCompletionCreateParamsNonStreaming {
    const window = this.contextTokens;
    if (!window) return params;
    const chars = JSON.stringify(params.messages).length + JSON.stringify(params.tools ?? []).length;
    const prompt = estimateTokens(chars);
    const room = window - prompt;
    if (room < MIN_OUTPUT_TOKENS) throw this.contextExceeded(`about ${prompt} prompt tokens`, window);
    const cap = params.max_tokens ?? room;
    return cap <= room ? params : { ...params, max_tokens: room };
  }

  private contextExceeded(what: string, window?: number): ApplicationFailure {
    const limit = window ? `its ${window}-token context` : 'its context';
    return ApplicationFailure.create({
      message: `the prompt for ${this.spec} does not fit ${limit} (${what})`,
      type: ModelError.ContextExceeded,
      nonRetryable: true,
      details: [{ contextTokens: window ?? null }],
    });
  }

  private failure(error: unknown, request?: ProviderRequest, protocol?: OpenAIProtocol): ApplicationFailure {
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const body = error.error as { message?: unknown } | string | undefined;
      const apiMessage = typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : null;
      const message = excerpt(error.message);
      if (isContextRefusal(error.status, apiMessage ?? message, error.code)) {
        return this.contextExceeded(`the server said: ${excerpt(apiMessage ?? message, 200)}`, this.contextTokens);
      }
      const failure = toModelFailure(
        { status: error.status, headers: error.headers, message, apiMessage: apiMessage && excerpt(apiMessage) },
        this.spec,
      );
      // A server without tool calling refuses the `tools` field; say how to use it anyway.
      const aboutTools = /tool/i.test(apiMessage ?? message) && error.status >= 400 && error.status < 500;
      if (aboutTools && protocol === 'tools' && request && request.tools.length > 0) {
        return ApplicationFailure.nonRetryable(
          `${failure.message}. If this server has no tool calling, use constrained decoding or the JSON text ` +
            `protocol: openai:${this.options.model}@${this.options.baseURL}#json (or #text)`,
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

  private toModelResponse(
    completion: ChatCompletion,
    request: ProviderRequest,
    protocol: OpenAIProtocol,
  ): ModelResponse {
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    const message = choice?.message;
    const text = message?.content;
    const calls = message && protocol === 'tools' ? toolCallsOf(message) : [];
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
      ...this.callsOf(content, calls, request, protocol),
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

  /** The reply's text and calls as the protocol carries them. */
  private callsOf(
    content: string,
    calls: ToolCall[],
    request: ProviderRequest,
    protocol: OpenAIProtocol,
  ): { text: string; toolCalls: ToolCall[] } {
    if (protocol === 'tools') return { text: content, toolCalls: calls };
    const json = protocol === 'json' ? jsonModeOf(request) : undefined;
    // A reply cut before its JSON closed is not an object: it stays text, which the workflow reads as it can.
    if (json) return json.decode(parsedJson(content), content);
    return { text: content, toolCalls: speaksEnvelope(request) ? envelopeToolCalls(content, request) : [] };
  }
}
