import { ApplicationFailure } from '@temporalio/common';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { ModelError } from '../../common/failure-types';

// The context window of an OpenAI-compatible server, as the provider keeps a request inside it.

/** A conservative count of the tokens in `chars` characters of prompt: few tokenizers average under 3 per token. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 3);
}

/** Fewest output tokens worth asking for; a prompt that leaves less does not fit. */
export const MIN_OUTPUT_TOKENS = 16;

/** A server's refusal of a prompt longer than its context, in llama.cpp's, vLLM's and OpenAI's words. */
export function isContextRefusal(status: number, text: string, code: unknown): boolean {
  if (code === 'context_length_exceeded') return true;
  return (
    status === 400 &&
    /exceed(s|ed)? (the )?(available )?context|maximum context length|context (length|window|size)/i.test(text)
  );
}

/** The failure of a prompt that does not fit: final, since the same prompt never will; the cycle archives and asks again. */
export function contextExceeded(spec: string, what: string, window?: number): ApplicationFailure {
  const limit = window ? `its ${window}-token context` : 'its context';
  return ApplicationFailure.create({
    message: `the prompt for ${spec} does not fit ${limit} (${what})`,
    type: ModelError.ContextExceeded,
    nonRetryable: true,
    details: [{ contextTokens: window ?? null }],
  });
}

/**
 * `params` within a known context window: the output cap lowered to what the prompt leaves, and a prompt that leaves
 * too little refused before it is sent.
 */
export function fitToContext(
  params: ChatCompletionCreateParamsNonStreaming,
  window: number | undefined,
  spec: string,
): ChatCompletionCreateParamsNonStreaming {
  if (!window) return params;
  const chars = JSON.stringify(params.messages).length + JSON.stringify(params.tools ?? []).length;
  const prompt = estimateTokens(chars);
  const room = window - prompt;
  if (room < MIN_OUTPUT_TOKENS) throw contextExceeded(spec, `about ${prompt} prompt tokens`, window);
  const cap = params.max_tokens ?? room;
  return cap <= room ? params : { ...params, max_tokens: room };
}
