import { type Message, type TextMessage, contentText } from './model';

function isToolUse(message: Message): boolean {
  return message.role === 'tool' || (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0);
}

/**
 * A request's tool use as text, for models that read only text (the JSON text protocol, the scripted model): the
 * messages before the first call stay as they are; the calls' results, each as `- name(args) → result`, go in a
 * `<tool_results_this_turn>` block at the end of the last user message before them, after any later user text
 * (directives that arrived meanwhile). The model's own text beside its calls is left out, as it always was. Blocks
 * join into one text: cache marks mean nothing to these models.
 */
export function flattenToolUse(messages: readonly Message[]): TextMessage[] {
  const first = messages.findIndex(isToolUse);
  const plain = (list: readonly Message[]) =>
    list.map((message): TextMessage => ({
      role: message.role === 'assistant' ? 'assistant' : 'user',
      content: contentText(message.content),
    }));
  if (first === -1) return plain(messages);
  const head = plain(messages.slice(0, first));
  const base = head.at(-1)?.role === 'user' ? (head.pop() as TextMessage).content : undefined;
  const calls = new Map<string, { name: string; input: unknown }>();
  const later: string[] = [];
  const results: string[] = [];
  for (const message of messages.slice(first)) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) calls.set(call.id, call);
    } else if (message.role === 'tool') {
      const call = calls.get(message.toolCallId);
      const args = JSON.stringify(call?.input ?? {}) ?? '{}';
      results.push(`- ${call?.name ?? message.name}(${args}) → ${message.content}`);
    } else if (contentText(message.content) !== '') {
      later.push(contentText(message.content));
    }
  }
  const block = ['<tool_results_this_turn>', ...results, '</tool_results_this_turn>'].join('\n');
  const parts = [...(base === undefined ? [] : [base]), ...later, ...(results.length > 0 ? [block] : [])];
  return [...head, { role: 'user', content: parts.join('\n\n') }];
}
