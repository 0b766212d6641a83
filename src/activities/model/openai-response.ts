import { ApplicationFailure } from '@temporalio/common';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ModelResponse, ToolCall } from '../../core/cycle/model';
import { ModelError } from '../../common/failure-types';
import { envelopeToolCalls, speaksEnvelope } from './envelope';
import type { OpenAIProtocol } from '../../config';
import { excerpt } from './excerpt';
import type { JsonMode } from './json-mode';
import { toolCallsOf } from './openai-messages';
import { parsedJson } from './openai-probe';
import type { ProviderRequest } from './provider';

/** A chat completion as a model response: its text and calls as the protocol carries them, and its usage. */
export function completionResponse(
  completion: ChatCompletion,
  request: ProviderRequest,
  protocol: OpenAIProtocol,
  source: { spec: string; model: string },
  json?: JsonMode,
): ModelResponse {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  const message = choice?.message;
  const text = message?.content;
  const calls = message && protocol === 'tools' ? toolCallsOf(message) : [];
  if (!message || (typeof text !== 'string' && calls.length === 0)) {
    const quoted = excerpt(JSON.stringify(completion ?? null));
    throw ApplicationFailure.nonRetryable(
      `malformed chat completion from ${source.spec} (expected choices[0].message.content or tool_calls): ${quoted}`,
      ModelError.BadResponse,
    );
  }
  const content = typeof text === 'string' ? text : '';
  const usage = completion.usage;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    ...callsOf(content, calls, request, protocol, json),
    stopReason: choice?.finish_reason ?? null,
    usage: {
      // Chat completions count cached prompt tokens inside prompt_tokens; here they are counted apart, as cache reads.
      inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
      outputTokens: usage?.completion_tokens ?? 0,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    },
    model: completion.model || source.model,
  };
}

/** The reply's text and calls as the protocol carries them. */
function callsOf(
  content: string,
  calls: ToolCall[],
  request: ProviderRequest,
  protocol: OpenAIProtocol,
  json: JsonMode | undefined,
): { text: string; toolCalls: ToolCall[] } {
  if (protocol === 'tools') return { text: content, toolCalls: calls };
  // A reply cut before its JSON closed is not an object: it stays text, which the workflow reads as it can.
  if (json) return json.decode(parsedJson(content), content);
  return { text: content, toolCalls: speaksEnvelope(request) ? envelopeToolCalls(content, request) : [] };
}
