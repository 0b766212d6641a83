import { type ModelResponse, addUsage } from '../../core/cycle/model';
import { isCut } from '../../core/cycle/output-limits';
import { parseTextAction } from '../../core/cycle/parse';
import { headCodePoints } from '../../core/text';
import type { ModelProvider, ProviderRequest, TextListener } from './provider';

/** Whether `response` makes a call the request forced: a native call of an offered tool, or one in the text. */
export function makesForcedCall(request: ProviderRequest, response: ModelResponse): boolean {
  const choice = request.toolChoice;
  const allowed = (name: string) =>
    typeof choice === 'object' ? name === choice.name : request.tools.some((tool) => tool.name === name);
  if (response.toolCalls.length > 0) return response.toolCalls.some((call) => allowed(call.name));
  const parsed = parseTextAction(response.text);
  return parsed.ok && allowed(parsed.action.tool);
}

/**
 * Whether the output cap cut the reply while it was making a call: a native call, or a JSON object begun (constrained
 * decoding writes nothing else). The model did not decline the call but ran out of room: the same cap would cut a retry
 * too, at the cost of a second full cap of output (the providers' advice for a cut tool call is a larger cap, which is
 * the user's to give). The workflow notes the cut instead. A reply cut while still in prose is asked again.
 */
export function cutWhileCalling(response: ModelResponse): boolean {
  return isCut(response) && (response.toolCalls.length > 0 || /^\s*(```(json)?\s*)?\{/.test(response.text));
}

function correction(request: ProviderRequest): string {
  const choice = request.toolChoice;
  const what = typeof choice === 'object' ? `the tool "${choice.name}"` : 'one of the tools';
  return `Your last reply did not call ${what}. This reply must call ${what}, with arguments that match its schema.`;
}

/**
 * One model call whose forced tool call (reflect's `update_scratchpad`, a task turn's action) is given one corrective
 * retry in the same iteration when the reply comes back without it: the model sees its reply and what was asked.
 * The usage of both requests is counted; a second miss is returned as it is, for the workflow to note. A call the
 * output cap cut gets no retry ({@link cutWhileCalling}).
 */
export async function completeForcedCall(
  provider: ModelProvider,
  request: ProviderRequest,
  signal?: AbortSignal,
  onText?: TextListener,
): Promise<ModelResponse> {
  // Only a reply the model may write as text streams: a forced call is never text a user reads.
  const first = await provider.complete(request, signal, request.toolChoice === 'auto' ? onText : undefined);
  const settled = request.toolChoice === 'auto' || request.tools.length === 0 || makesForcedCall(request, first);
  if (settled || cutWhileCalling(first)) return first;
  const retried = await provider.complete(
    {
      ...request,
      messages: [
        ...request.messages,
        // Some servers refuse an empty assistant turn.
        { role: 'assistant', content: headCodePoints(first.text, 2000) || '(no reply)' },
        { role: 'user', content: correction(request) },
      ],
    },
    signal,
  );
  return { ...retried, usage: addUsage(first.usage, retried.usage), corrected: true };
}
