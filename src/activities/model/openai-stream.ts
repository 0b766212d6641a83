import { ApplicationFailure } from '@temporalio/common';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { ModelError } from '../../common/failure-types';

/**
 * Most characters a streamed reply may gather. The output cap bounds an honest server far below this; a server that
 * streams without end is refused rather than allowed to fill the worker's memory.
 */
export const MAX_STREAMED_CHARS = 4_000_000;

type StreamedCall = ChatCompletionMessageToolCall & { type: 'function' };

/**
 * A streamed chat completion gathered into the completion a non-streamed request returns: the text deltas joined,
 * each tool call's pieces joined by its index, the last finish reason, and the usage the final chunk carries
 * (`stream_options.include_usage`). Only the first choice is kept, as only it is ever read.
 */
export async function gatherCompletion(
  chunks: AsyncIterable<ChatCompletionChunk>,
  source: string,
  /** Hears the reply's text deltas as they come. */
  onContent?: (text: string) => void,
): Promise<ChatCompletion> {
  let head: Pick<ChatCompletion, 'id' | 'model' | 'created'> | undefined;
  let content: string | null = null;
  const calls: StreamedCall[] = [];
  let finish: ChatCompletion.Choice['finish_reason'] | null = null;
  let usage: ChatCompletion['usage'];
  let size = 0;
  for await (const chunk of chunks) {
    head ??= { id: chunk.id, model: chunk.model, created: chunk.created };
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => candidate.index === 0);
    if (!choice) continue;
    const { delta } = choice;
    if (typeof delta?.content === 'string') {
      content = (content ?? '') + delta.content;
      if (delta.content !== '') onContent?.(delta.content);
    }
    for (const piece of delta?.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name = piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
      size += piece.function?.arguments?.length ?? 0;
    }
    size += delta?.content?.length ?? 0;
    if (size > MAX_STREAMED_CHARS) {
      throw ApplicationFailure.nonRetryable(
        `${source} streamed more than ${MAX_STREAMED_CHARS} characters in one reply`,
        ModelError.BadResponse,
      );
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (!head) return { id: '', model: '', created: 0, object: 'chat.completion', choices: [] };
  const toolCalls = calls.filter((call) => call !== undefined);
  const message = {
    role: 'assistant' as const,
    content,
    refusal: null,
    ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
  };
  return {
    ...head,
    object: 'chat.completion',
    // A stream that ended without a finish reason keeps none, so a cut reply is not taken for a finished one.
    choices: [{ index: 0, message, finish_reason: finish as ChatCompletion.Choice['finish_reason'], logprobs: null }],
    ...(usage && { usage }),
  };
}
