import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { type Message, type ToolCall, contentText } from '../../core/cycle/model';
import type { ProviderRequest } from './provider';

// Requests and replies in Chat Completions' shapes, for the OpenAI-compatible provider.

export function toolChoiceOf(choice: ProviderRequest['toolChoice']): ChatCompletionToolChoiceOption {
  if (typeof choice === 'object') return { type: 'function', function: { name: choice.name } };
  return choice === 'any' ? 'required' : 'auto';
}

/** The model's tool calls; arguments that are not a JSON object stay a string, for the parser to refuse by name. */
export function toolCallsOf(message: ChatCompletion.Choice['message']): ToolCall[] {
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
export function chatMessage(message: Message): ChatCompletionMessageParam {
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
