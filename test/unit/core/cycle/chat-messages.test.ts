import { anthropicMessages } from '../../../../src/activities/model/anthropic';
import { buildRespondMessages, turnExchange } from '../../../../src/core/cycle/chat-messages';
import { dispatchAction, refuse } from '../../../../src/core/cycle/dispatch';
import { flattenToolUse } from '../../../../src/core/cycle/flatten-messages';
import {
  MAX_HISTORY_TOOL_CALLS,
  MAX_MESSAGE_CONTENT_CHARS,
  type Message,
  ModelRequestSchema,
  contentText,
  messagesChars,
} from '../../../../src/core/cycle/model';
import type { Handled } from '../../../../src/core/cycle/plan-calls';
import { renderMarkdown } from '../../../../src/core/scratchpad/render';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';

const state = defaultScratchpad('Unit');
const singlePhase = { work: ['echo', 'fs_write'], update: true, done: false };
const understanding = `<current_understanding>\n${renderMarkdown(state).trimEnd()}\n</current_understanding>\n\nThe above is your current understanding. Respond to the user naturally.`;

function toolCall(tool: string, args: Record<string, unknown>, callId?: string): Handled {
  const action = { tool, args, ...(callId !== undefined && { callId }) };
  return {
    step: dispatchAction(state, action, singlePhase),
    observation: { ok: true, result: `${tool.toUpperCase()}: ok` },
  };
}

/** The first iteration of a single-phase turn: echo, an update (no observation), a second work call refused. */
function firstIteration(ids: (string | undefined)[] = ['toolu_a', 'toolu_b', 'toolu_c']): Handled[] {
  const update = { tool: 'update_scratchpad', args: { trajectory_now: 'Echoing' }, callId: ids[1] };
  const refused = { tool: 'fs_write', args: { path: 'a.txt', content: 'A' }, callId: ids[2] };
  return [
    toolCall('echo', { message: 'hi' }, ids[0]),
    { step: dispatchAction(state, update, singlePhase) },
    { step: refuse(state, refused, 'not run: one call'), observation: { ok: false, error: 'not run: one call' } },
  ];
}

describe('a chat turn as provider-neutral messages', () => {
  it('is the scratchpad, the acknowledgement and the input with the directives held at the start', () => {
    const messages = buildRespondMessages(state, 'Hello', [{ text: 'Be brief', iteration: 1 }]);

    expect(messages.map((message) => ({ ...message, content: contentText(message.content) }))).toEqual([
      { role: 'user', content: understanding },
      { role: 'assistant', content: 'Understood.' },
      { role: 'user', content: 'Hello\n\nUSER DIRECTIVE: Be brief' },
    ]);
    // The scratchpad comes in blocks, its stable sections marked for caching (test/unit/core/cycle/prompt-prefix.test.ts).
    expect(Array.isArray(messages[0]?.content)).toBe(true);
  });

  it('sends each iteration that ran tools as the calls with their ids, one tool message each, then new directives', () => {
    const exchanges = [
      turnExchange(1, 'Echoing.', firstIteration()),
      turnExchange(2, '', [toolCall('echo', { message: 'again' }, 'toolu_d')]),
    ];
    const directives = [
      { text: 'Be brief', iteration: 1 },
      { text: 'Use French', iteration: 2 },
    ];

    const messages = buildRespondMessages(state, 'Hello', directives, exchanges);

    expect(messages.slice(2)).toEqual([
      { role: 'user', content: 'Hello\n\nUSER DIRECTIVE: Be brief' },
      {
        role: 'assistant',
        content: 'Echoing.',
        toolCalls: [
          { id: 'toolu_a', name: 'echo', input: { message: 'hi' } },
          { id: 'toolu_b', name: 'update_scratchpad', input: { trajectory_now: 'Echoing' } },
          { id: 'toolu_c', name: 'fs_write', input: { path: 'a.txt', content: 'A' } },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', name: 'echo', content: 'ECHO: ok' },
      { role: 'tool', toolCallId: 'toolu_b', name: 'update_scratchpad', content: 'applied' },
      { role: 'tool', toolCallId: 'toolu_c', name: 'fs_write', content: 'ERROR: not run: one call', isError: true },
      { role: 'user', content: 'USER DIRECTIVE: Use French' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_d', name: 'echo', input: { message: 'again' } }] },
      { role: 'tool', toolCallId: 'toolu_d', name: 'echo', content: 'ECHO: ok' },
    ]);
    expect(ModelRequestSchema().safeParse({ system: 'respond', messages, tools: ['echo'] }).success).toBe(true);
  });

  it('makes stable ids where the model gave none (the JSON text protocol), and distinct ones where it repeated one', () => {
    const unnamed = turnExchange(3, '{"tool":"echo","args":{"message":"hi"}}', [toolCall('echo', { message: 'hi' })]);
    const repeated = turnExchange(4, '', firstIteration(['same', 'same', '']));

    expect(unnamed.calls.map((call) => call.id)).toEqual(['call_3_1']);
    expect(turnExchange(3, unnamed.text, [toolCall('echo', { message: 'hi' })])).toEqual(unnamed);
    expect(repeated.calls.map((call) => call.id)).toEqual(['same', 'call_4_2', 'call_4_3']);
  });

  it('answers a rejected update with its error, and keeps at most the history cap of calls from one reply', () => {
    const rejected = { tool: 'update_scratchpad', args: { no_such_key: 'x' }, callId: 'u1' };
    const flood = Array.from({ length: MAX_HISTORY_TOOL_CALLS + 5 }, (_, index) =>
      toolCall('echo', { message: String(index) }, `c${index}`),
    );

    const [call] = turnExchange(1, '', [{ step: dispatchAction(state, rejected, singlePhase) }]).calls;

    expect(call).toMatchObject({ id: 'u1', isError: true });
    expect(call?.result).toMatch(/^ERROR: .*no_such_key/);
    expect(turnExchange(1, '', flood).calls).toHaveLength(MAX_HISTORY_TOOL_CALLS);
  });

  it('counts tool results and the calls’ names and arguments in the prompt size', () => {
    const messages: Message[] = [
      { role: 'user', content: 'abc' },
      { role: 'assistant', content: 'de', toolCalls: [{ id: 'x', name: 'echo', input: { message: 'hi' } }] },
      { role: 'tool', toolCallId: 'x', name: 'echo', content: 'ECHO: hi' },
    ];

    expect(messagesChars(messages)).toBe(3 + 2 + 'echo'.length + '{"message":"hi"}'.length + 'ECHO: hi'.length);
  });
});

describe('flattening tool use back to text (JSON text protocol, scripted model)', () => {
  it('leaves a request without tool use as it was, its blocks joined', () => {
    const messages = buildRespondMessages(state, 'Hello', [{ text: 'Be brief', iteration: 1 }]);

    expect(flattenToolUse(messages)).toEqual(
      messages.map((message) => ({ role: message.role, content: contentText(message.content) })),
    );
  });

  it('reads as the <tool_results_this_turn> block always did: results after the input, the model’s text left out', () => {
    const text = turnExchange(1, '{"tool":"echo","args":{"message":"hi"}}', [toolCall('echo', { message: 'hi' })]);
    const messages = buildRespondMessages(state, 'Hello', [{ text: 'Be brief', iteration: 1 }], [text]);

    expect(flattenToolUse(messages)).toEqual([
      { role: 'user', content: understanding },
      { role: 'assistant', content: 'Understood.' },
      {
        role: 'user',
        content: [
          'Hello',
          '',
          'USER DIRECTIVE: Be brief',
          '',
          '<tool_results_this_turn>',
          '- echo({"message":"hi"}) → ECHO: ok',
          '</tool_results_this_turn>',
        ].join('\n'),
      },
    ]);
  });

  it('puts every call’s result in order, and directives that arrived mid-turn before the block', () => {
    const exchanges = [
      turnExchange(1, 'Echoing.', firstIteration()),
      turnExchange(2, '', [toolCall('echo', { message: 'again' })]),
    ];
    const messages = buildRespondMessages(state, 'Hello', [{ text: 'Use French', iteration: 2 }], exchanges);

    const flat = flattenToolUse(messages);

    expect(flat).toHaveLength(3);
    expect(flat[2]?.content).toBe(
      [
        'Hello',
        '',
        'USER DIRECTIVE: Use French',
        '',
        '<tool_results_this_turn>',
        '- echo({"message":"hi"}) → ECHO: ok',
        '- update_scratchpad({"trajectory_now":"Echoing"}) → applied',
        '- fs_write({"path":"a.txt","content":"A"}) → ERROR: not run: one call',
        '- echo({"message":"again"}) → ECHO: ok',
        '</tool_results_this_turn>',
      ].join('\n'),
    );
  });
});

describe('the model request schema', () => {
  const plain = { system: 'respond', tools: [] };

  it('keeps plain {role, content} messages valid', () => {
    expect(ModelRequestSchema().safeParse({ ...plain, messages: [{ role: 'user', content: 'hi' }] }).success).toBe(
      true,
    );
  });

  it.each<[string, Message[]]>([
    [
      'a result with no call',
      [
        { role: 'user', content: 'hi' },
        { role: 'tool', toolCallId: 'x', name: 'echo', content: 'r' },
      ],
    ],
    [
      'a call with no result',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'echo', input: {} }] },
        { role: 'user', content: 'more' },
        { role: 'assistant', content: 'ok' },
      ],
    ],
    [
      'a repeated id in one message',
      [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'x', name: 'echo', input: {} },
            { id: 'x', name: 'echo', input: {} },
          ],
        },
        { role: 'tool', toolCallId: 'x', name: 'echo', content: 'r' },
      ],
    ],
    ['an oversized message', [{ role: 'user', content: 'x'.repeat(MAX_MESSAGE_CONTENT_CHARS + 1) }]],
    [
      'too many calls in one message',
      [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: '',
          toolCalls: Array.from({ length: MAX_HISTORY_TOOL_CALLS + 1 }, (_, index) => ({
            id: `c${index}`,
            name: 'echo',
            input: {},
          })),
        },
      ],
    ],
  ])('refuses %s', (_, messages) => {
    expect(ModelRequestSchema().safeParse({ ...plain, messages }).success).toBe(false);
  });
});

describe('tool use in the Anthropic Messages API', () => {
  it('sends calls as tool_use blocks, merges results and a directive after them into one user message', () => {
    const exchanges = [turnExchange(1, 'Echoing.', firstIteration())];
    const messages = buildRespondMessages(state, 'Hello', [{ text: 'Use French', iteration: 2 }], exchanges);

    const sent = anthropicMessages(messages);

    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent[3]?.content).toEqual([
      { type: 'text', text: 'Echoing.' },
      { type: 'tool_use', id: 'toolu_a', name: 'echo', input: { message: 'hi' } },
      { type: 'tool_use', id: 'toolu_b', name: 'update_scratchpad', input: { trajectory_now: 'Echoing' } },
      { type: 'tool_use', id: 'toolu_c', name: 'fs_write', input: { path: 'a.txt', content: 'A' } },
    ]);
    expect(sent[4]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'ECHO: ok' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'applied' },
      { type: 'tool_result', tool_use_id: 'toolu_c', content: 'ERROR: not run: one call', is_error: true },
      { type: 'text', text: 'USER DIRECTIVE: Use French' },
    ]);
  });
});
