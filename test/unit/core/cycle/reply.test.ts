import { turnExchange } from '../../../../src/core/cycle/chat-messages';
import { dispatchAction, refuse } from '../../../../src/core/cycle/dispatch';
import { type ModelResponse, ZERO_USAGE } from '../../../../src/core/cycle/model';
import { chatCalls, parseToolCalls } from '../../../../src/core/cycle/parse';
import { MAX_CALLS_PER_RESPONSE, planCalls, stepLabel } from '../../../../src/core/cycle/plan-calls';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { traceEntries, traceEntry } from '../../../../src/core/cycle/trace';

function response(text: string, calls: [string, unknown][] = []): ModelResponse {
  const toolCalls = calls.map(([name, input], index) => ({ id: `c${index}`, name, input }));
  return { text, toolCalls, stopReason: null, usage: ZERO_USAGE, model: 'scripted:unit' };
}

const state = defaultScratchpad('Unit');
const chatOffer = { work: ['echo'], update: false, done: false };
const echo = { tool: 'echo', args: { message: 'hi' } };
const update = { tool: 'update_scratchpad', args: { trajectory_now: 'x' } };

describe('parsing a model reply', () => {
  it('keeps every native call in order, or reads one JSON-protocol object from the text', () => {
    expect(
      parseToolCalls(
        response('', [
          ['echo', { message: 'a' }],
          ['done', {}],
        ]),
      ),
    ).toEqual({
      ok: true,
      native: true,
      calls: [
        { tool: 'echo', args: { message: 'a' }, callId: 'c0' },
        { tool: 'done', args: {}, callId: 'c1' },
      ],
    });
    expect(parseToolCalls(response('{"tool": "echo", "args": {"message": "b"}}'))).toEqual({
      ok: true,
      native: false,
      calls: [{ tool: 'echo', args: { message: 'b' } }],
    });
    expect(parseToolCalls(response('just prose'))).toMatchObject({ ok: false });
    expect(parseToolCalls(response('', [['echo', [1, 2]]]))).toEqual({
      ok: false,
      error: 'arguments of echo must be an object',
    });
  });

  it('in chat, prose is the reply and a JSON object is a call only when it names an offered tool', () => {
    expect(chatCalls(response('Hello there.'), ['echo'])).toEqual([]);
    expect(chatCalls(response('{"tool": "shell", "args": {}}'), ['echo'])).toEqual([]);
    expect(chatCalls(response('{"tool": "echo", "args": {"message": "x"}}'), ['echo'])).toEqual([
      { tool: 'echo', args: { message: 'x' } },
    ]);
    expect(chatCalls(response('text', [['shell', {}]]), ['echo'])).toEqual([{ tool: 'shell', args: {}, callId: 'c0' }]);
  });
});

describe('several calls in one response', () => {
  it('applies every update, takes the first other call and refuses later ones naming the call that ran', () => {
    const plan = planCalls([update, echo, { tool: 'done', args: {} }, update]);

    expect(plan.map((entry) => entry.refusal)).toEqual([
      undefined,
      undefined,
      'not run: one call besides update_scratchpad per response, and echo ran; call done again in your next step',
      undefined,
    ]);
  });

  it(`refuses everything after the first ${MAX_CALLS_PER_RESPONSE} calls`, () => {
    const plan = planCalls(Array.from({ length: MAX_CALLS_PER_RESPONSE + 2 }, () => update));

    expect(plan.filter((entry) => entry.refusal === undefined)).toHaveLength(MAX_CALLS_PER_RESPONSE);
    expect(plan.at(-1)?.refusal).toBe(`not run: at most ${MAX_CALLS_PER_RESPONSE} calls are taken from one response`);
  });
});

describe('dispatching one call', () => {
  it('answers a tool that is not offered with an error observation, and an update while responding too', () => {
    const unknown = dispatchAction(state, { tool: 'shell', args: {} }, chatOffer);
    const early = dispatchAction(state, update, chatOffer);

    expect(unknown).toMatchObject({
      kind: 'unknown_tool',
      state,
      observation: { ok: false, error: 'unknown tool "shell" (available: echo)' },
    });
    expect(early).toMatchObject({ kind: 'unknown_tool', state });
    expect(early.kind === 'unknown_tool' && early.error).toMatch(/^update_scratchpad is not offered here/);
  });

  it('applies an offered update, notes a rejected one, and hands work tools back to run', () => {
    const offer = { ...chatOffer, update: true };

    expect(dispatchAction(state, update, offer)).toMatchObject({ kind: 'update', state: { trajectory: { now: 'x' } } });
    const rejected = dispatchAction(state, { tool: 'update_scratchpad', args: { bogus: 1 } }, offer);
    expect(rejected.kind === 'update' && rejected.error).toMatch(/bogus/);
    expect(rejected.state.notes).toMatch(/\[UPDATE REJECTED\]/);
    expect(dispatchAction(state, echo, offer)).toEqual({ kind: 'tool', state, action: echo });
  });
});

describe('trace entries and turn exchanges', () => {
  it('builds one entry per call with the shared request and response, and the turn shows each call its result', () => {
    const reply = response('Writing.', [
      ['echo', { message: 'hi' }],
      ['echo', { message: 'again' }],
    ]);
    const again = { tool: 'echo', args: { message: 'again' } };
    const refused = refuse(state, again, 'not run: later');
    const handled = [
      { step: dispatchAction(state, echo, chatOffer), observation: { ok: true, result: 'ECHO: hi' } },
      { step: refused, observation: { ok: false, error: 'not run: later' } },
    ];
    const call = {
      iteration: 2,
      phase: 'respond' as const,
      request: { promptChars: 10, tools: ['echo'] },
      response: reply,
      calls: [echo, again],
    };

    const entries = traceEntries(call, handled);

    expect(entries).toEqual([
      {
        iteration: 2,
        phase: 'respond',
        request: { promptChars: 10, tools: ['echo'] },
        response: { text: 'Writing.', toolCalls: ['echo', 'echo'], stopReason: null },
        dispatch: 'tool',
        action: echo,
        observation: 'ECHO: hi',
        usage: ZERO_USAGE,
      },
      expect.objectContaining({ dispatch: 'refused', action: again, error: 'not run: later' }),
    ]);
    expect(traceEntry(call, { dispatch: 'reply' })).not.toHaveProperty('action');
    expect(turnExchange(2, 'Writing.', handled)).toEqual({
      text: 'Writing.',
      calls: [
        { id: 'call_2_1', name: 'echo', input: { message: 'hi' }, result: 'ECHO: hi', isError: false },
        { id: 'call_2_2', name: 'echo', input: { message: 'again' }, result: 'ERROR: not run: later', isError: true },
      ],
    });
    expect(stepLabel(handled, 'reply')).toBe('tool echo, refused echo');
  });

  it('traces an update in the reflect phase as reflect', () => {
    const step = dispatchAction(state, update, { work: [], update: true, done: false });
    const call = {
      iteration: 3,
      phase: 'reflect' as const,
      request: { promptChars: 1, tools: [] },
      response: response(''),
    };

    expect(traceEntries({ ...call, calls: [update] }, [{ step }])[0]).toMatchObject({
      dispatch: 'reflect',
      action: update,
    });
  });
});
