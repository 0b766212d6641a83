import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { ModelResponse } from '../../core/cycle/model';
import { toModelFailure } from './errors';
import { envelopeSystem, envelopeToolCalls, speaksEnvelope } from './envelope';
import { jsonProtocolSystem } from './json-protocol';
import type { ModelProvider, ProviderRequest } from './provider';
import { ModelError } from '../../common/failure-types';

/** Where an OpenAI-compatible chat-completions server (Ollama, llama.cpp, vLLM) listens. */
export interface OpenAICompatibleOptions {
  model: string;
  /** Up to and including `/v1`, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  apiKey?: string;
  /** Per-request client timeout; the activity's start-to-close timeout still bounds the attempt. */
  timeoutMs?: number;
}

const ChatCompletionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(z.object({ message: z.object({ content: z.string() }), finish_reason: z.string().nullish() }))
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().nullish(),
});

/** `{"error": {"message": ...}}` (OpenAI, vLLM, Ollama) or `{"error": "..."}` (older servers). */
function bodyErrorMessage(body: string): string {
  try {
    const error = (JSON.parse(body) as { error?: unknown }).error;
    if (typeof error === 'string') return error;
    const message = (error as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: the raw body is the best message there is.
  }
  return body.slice(0, 500) || 'empty body';
}

/** A local or self-hosted model over chat completions, using the JSON text protocol instead of native tools. */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly spec: string;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.spec = `openai:${options.model}@${options.baseURL}`;
  }

  async complete(request: ProviderRequest, signal?: AbortSignal): Promise<ModelResponse> {
    const system = speaksEnvelope(request) ? envelopeSystem(request) : jsonProtocolSystem(request);
    const messages = [{ role: 'system', content: system }, ...request.messages];
    const body = { model: this.options.model, messages, max_tokens: request.maxTokens, temperature: 0 };
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.options.baseURL.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: this.requestSignal(signal),
      });
      text = await response.text();
    } catch (error) {
      // On cancellation rethrow the activity's reason so the worker reports it as cancelled.
      if (signal?.aborted) throw signal.reason;
      throw toModelFailure(error, this.spec);
    }
    if (!response.ok) {
      throw toModelFailure(
        { status: response.status, headers: response.headers, apiMessage: bodyErrorMessage(text) },
        this.spec,
      );
    }
    return this.toModelResponse(text, request);
  }

  private requestSignal(signal?: AbortSignal): AbortSignal | undefined {
    const timeout = this.options.timeoutMs ? AbortSignal.timeout(this.options.timeoutMs) : undefined;
    if (signal && timeout) return AbortSignal.any([signal, timeout]);
    return signal ?? timeout;
  }

  private toModelResponse(text: string, request: ProviderRequest): ModelResponse {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = ChatCompletionSchema.safeParse(json);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(
        `malformed chat completion from ${this.spec} (expected choices[0].message.content): ${text.slice(0, 300)}`,
        ModelError.BadResponse,
      );
    }
    const { choices, usage, model } = parsed.data;
    const choice = choices[0] as (typeof choices)[number];
    return {
      text: choice.message.content,
      toolCalls: speaksEnvelope(request) ? envelopeToolCalls(choice.message.content, request) : [],
      stopReason: choice.finish_reason ?? null,
      usage: {
        inputTokens: usage?.prompt_tokens ?? 0,
        outputTokens: usage?.completion_tokens ?? 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      model: model ?? this.options.model,
    };
  }
}
