import type { ProviderRequest } from '../src/activities/model/provider';
import { SYSTEM_PROMPTS, systemPrompt } from '../src/activities/model/system-prompts';
import { messagesChars } from '../src/core/cycle/model';

/** A prompt's size in characters and in estimated tokens. */
export interface PromptSize {
  chars: number;
  /** chars / 4, the usual rule of thumb for English text. */
  tokens: number;
}

/** One exchange of the conversation, as the user sent it and the agent answered. */
export interface Exchange {
  input: string;
  reply: string;
}

/** Characters to estimated tokens. */
export function sizeOf(chars: number): PromptSize {
  return { chars, tokens: Math.round(chars / 4) };
}

/** Everything a request puts before the model: its system prompt and every message, tool calls and results too. */
export function requestChars(request: Pick<ProviderRequest, 'system' | 'messages'>): number {
  return systemPrompt(request.system).length + messagesChars(request.messages);
}

/** Prompt sizes of one phase's requests, in the order the model received them (one per turn). */
export function phaseChars(
  requests: readonly Pick<ProviderRequest, 'system' | 'messages'>[],
  phase: 'respond' | 'reflect',
): number[] {
  return requests.filter((request) => request.system === phase).map(requestChars);
}

/**
 * The usual chat loop's prompt at every turn: the system prompt, every earlier input and reply, then this input.
 * The same system prompt as the respond phase, so the two differ only in what carries the conversation.
 */
export function transcriptChars(exchanges: readonly Exchange[]): number[] {
  let history = SYSTEM_PROMPTS.respond.length;
  return exchanges.map((exchange) => {
    const chars = history + exchange.input.length;
    history = chars + exchange.reply.length;
    return chars;
  });
}
