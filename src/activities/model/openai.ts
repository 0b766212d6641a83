import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelResponse } from '../../core/cycle/model';
import { flattenToolUse } from '../../core/cycle/flatten-messages';
import { ModelError } from '../../common/failure-types';
import { toModelFailure } from './errors';
import { openaiClient, openaiSdk } from './sdks';
import { excerpt } from './excerpt';
import { envelopeSystem, speaksEnvelope } from './envelope';
import { jsonProtocolSystem } from './json-protocol';
import { type JsonMode, jsonModeOf } from './json-mode';
import type { ModelProvider, ProviderRequest, TextListener } from './provider';
import { replyTextOf } from './reply-text';
import { systemPrompt } from './system-prompts';
import { type ServerInfo, serverInfo } from './server-info';
import type { OpenAIProtocol, OpenAIProtocolChoice } from '../../config';
import { chatMessage, toolChoiceOf } from './openai-messages';
import { contextExceeded, fitToContext, isContextRefusal } from './context-window';
import { probeCalls } from './openai-probe';
import { completionResponse } from './openai-response';
import { gatherCompletion } from './openai-stream';

/**
 * How a server is asked for calls: `tools`, native tool calling (vLLM, Ollama, llama.cpp, LM Studio); `json`,
 * constrained decoding to a JSON Schema of the calls (`response_format: json_schema`); `text`, the JSON text protocol
 * (and the staged runs' envelope) by prompt alone. `auto` probes the server once for the first that works.
 */
export type { OpenAIProtocol, OpenAIProtocolChoice };

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

/**
 * A local or self-hosted model over chat completions, through the official `openai` SDK with its retries off
 * (Temporal retries). Unless the spec names a protocol, the first request probes the server once for native tool
 * calling, then constrained decoding, then the prompt alone, and keeps the answer for the worker's life.
 */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly spec: string;
  private sdkClient?: OpenAI;
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
  }

  /** The SDK client, made at the first request: a worker that never calls this server does not load the SDK. */
  private get client(): OpenAI {
    return (this.sdkClient ??= openaiClient(this.options.baseURL, this.options.apiKey));
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

  private probeCalls(info: ServerInfo, signal?: AbortSignal): Promise<{ protocol: OpenAIProtocol; why: string }> {
    return probeCalls(info, {
      model: this.options.model,
      send: (params) => this.client.chat.completions.create(params, { signal }),
      fail: (error) => {
        if (signal?.aborted) throw signal.reason;
        return this.failure(error);
      },
    });
  }

  async complete(request: ProviderRequest, signal?: AbortSignal, onText?: TextListener): Promise<ModelResponse> {
    const protocol = await this.resolveProtocol(signal);
    // Built once: the request's schema, and how its reply decodes.
    const json = protocol === 'json' ? jsonModeOf(request) : undefined;
    let completion: ChatCompletion;
    // The client timeout is a signal of its own, so a timeout is told apart from the activity's cancellation.
    const timeout = this.options.timeoutMs ? AbortSignal.timeout(this.options.timeoutMs) : undefined;
    const requestSignal = signal && timeout ? AbortSignal.any([signal, timeout]) : (signal ?? timeout);
    try {
      completion = await this.streamed(
        fitToContext(this.params(request, protocol, json), this.contextTokens, this.spec),
        requestSignal,
        replyTextOf(protocol, json, onText),
      );
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
    return completionResponse(completion, request, protocol, { spec: this.spec, model: this.options.model }, json);
  }

  /**
   * One request, streamed: a cancelled call closes the connection mid-reply, which stops the server generating (a
   * server blocked on a whole reply does not notice a client gone). A server that answers with one JSON body anyway
   * is read as such.
   */
  private async streamed(
    params: ChatCompletionCreateParamsNonStreaming,
    signal?: AbortSignal,
    onText?: TextListener,
  ): Promise<ChatCompletion> {
    const { data: stream, response } = await this.client.chat.completions
      .create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal })
      .withResponse();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return (await response.json()) as ChatCompletion;
    }
    return gatherCompletion(stream, this.spec, onText);
  }

  /** The request body: the system prompt, the messages, and the calls asked for in the protocol's way. */
  params(
    request: ProviderRequest,
    protocol: OpenAIProtocol = this.protocol ?? 'tools',
    json: JsonMode | undefined = protocol === 'json' ? jsonModeOf(request) : undefined,
  ): ChatCompletionCreateParamsNonStreaming {
    const native = protocol === 'tools';
    let system = systemPrompt(request.system);
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

  private failure(error: unknown, request?: ProviderRequest, protocol?: OpenAIProtocol): ApplicationFailure {
    if (error instanceof openaiSdk().APIError && typeof error.status === 'number') {
      const body = error.error as { message?: unknown } | string | undefined;
      const apiMessage = typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : null;
      const message = excerpt(error.message);
      if (isContextRefusal(error.status, apiMessage ?? message, error.code)) {
        return contextExceeded(
          this.spec,
          `the server said: ${excerpt(apiMessage ?? message, 200)}`,
          this.contextTokens,
        );
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
}
