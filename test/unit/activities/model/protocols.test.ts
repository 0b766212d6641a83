import { completeForcedCall, makesForcedCall } from '../../../../src/activities/model/forced-call';
import { cutReply, grammarSchema, jsonModeOf } from '../../../../src/activities/model/json-mode';
import { offeredTools } from '../../../../src/activities/model/offered-tools';
import type { ModelProvider, ProviderRequest } from '../../../../src/activities/model/provider';
import { turnsSinceMemoryChanged, type CycleRecord } from '../../../../src/core/agent/agent';
import { type ModelResponse, ZERO_USAGE } from '../../../../src/core/cycle/model';
import { isCut, outputCap } from '../../../../src/core/cycle/output-limits';
import { defaultScratchpad, memoryChanged } from '../../../../src/core/scratchpad/scratchpad';
import { parseOutputCaps } from '../../../../src/cli/options';
import { parseModelSpec } from '../../../../src/config';

function request(tools: string[], toolChoice: ProviderRequest['toolChoice']): ProviderRequest {
  return {
    system: 'reflect',
    messages: [{ role: 'user', content: 'hi' }],
    tools: offeredTools(tools),
    toolChoice,
    maxTokens: 64,
  };
}

function reply(text: string, toolCalls: ModelResponse['toolCalls'] = []): ModelResponse {
  return { text, toolCalls, stopReason: 'stop', usage: { ...ZERO_USAGE, outputTokens: 5 }, model: 'm' };
}

describe('#json: what constrained decoding asks for', () => {
  it('a forced tool is held to its arguments; update_scratchpad to plain, bounded values', () => {
    const mode = jsonModeOf(request(['update_scratchpad'], { name: 'update_scratchpad' }));
    const properties = mode?.schema.properties as Record<string, { type: string; maxLength?: number }>;
    expect(properties.understanding_known).toEqual({ type: 'string', maxLength: 300 });
    expect(Object.keys(properties)[0]).toBe('understanding_known');
    expect(mode?.decode({ identity_user: 'Ada' }, '').toolCalls).toEqual([
      { id: 'json-1', name: 'update_scratchpad', input: { identity_user: 'Ada' } },
    ]);
    // Not an object (a reply cut before it closed): no call.
    expect(mode?.decode(undefined, '{"identity_user": "A').toolCalls).toEqual([]);
  });

  it('a forced choice among tools is one {tool, args} branch each; auto adds a reply branch', () => {
    const forced = jsonModeOf(request(['echo', 'done'], 'any'));
    const branches = (forced?.schema.anyOf as { properties: { tool: { const: string } } }[]).map(
      (branch) => branch.properties.tool?.const,
    );
    expect(branches).toEqual(['echo', 'done']);
    expect(forced?.decode({ tool: 'done', args: { summary: 'ok' } }, '').toolCalls[0]?.name).toBe('done');
    // A tool the request did not offer is no call.
    expect(forced?.decode({ tool: 'shell', args: {} }, '').toolCalls).toEqual([]);

    const free = jsonModeOf(request(['echo'], 'auto'));
    expect((free?.schema.anyOf as object[]).length).toBe(2);
    expect(free?.decode({ reply: 'Hello' }, '{"reply": "Hello"}')).toEqual({ text: 'Hello', toolCalls: [] });
    // The output cap cut the reply inside its JSON: the words written so far, not a fragment of JSON.
    expect(free?.decode(undefined, '{\n  "reply": "Hello, Ad')).toEqual({ text: 'Hello, Ad', toolCalls: [] });
    // A call is the reply: its JSON is no text a single-phase turn would show the user.
    const call = '{"tool": "echo", "args": {"message": "hi"}}';
    expect(free?.decode(JSON.parse(call), call)).toEqual({
      text: '',
      toolCalls: [{ id: 'json-1', name: 'echo', input: { message: 'hi' } }],
    });
    expect(jsonModeOf(request([], 'auto'))).toBeUndefined();
  });

  it('drops the keywords grammars handle badly, and keeps property names that look like them', () => {
    const schema = {
      type: 'object',
      properties: { pattern: { type: 'string', pattern: 'a+', maxLength: 9 }, items: { type: 'array', maxItems: 3 } },
    };
    expect(grammarSchema(schema)).toEqual({
      type: 'object',
      properties: { pattern: { type: 'string' }, items: { type: 'array' } },
    });
  });

  it('reads a cut reply through its escapes', () => {
    expect(cutReply('{"reply": "line one\\nline two\\')).toBe('line one\nline two');
    expect(cutReply('{"reply": "caf\\u00')).toBe('caf');
    expect(cutReply('{"tool": "echo"')).toBeUndefined();
  });
});

describe('a forced call that does not come gets one corrective retry', () => {
  class Replies implements ModelProvider {
    readonly spec = 'test';
    readonly requests: ProviderRequest[] = [];
    constructor(private readonly replies: ModelResponse[]) {}
    async complete(sent: ProviderRequest): Promise<ModelResponse> {
      this.requests.push(sent);
      const next = this.replies.shift();
      if (!next) throw new Error('no reply left');
      return next;
    }
  }

  it('asks again with the reply and what was asked, and counts both calls', async () => {
    const provider = new Replies([
      reply('I will remember that.'),
      reply('', [{ id: 'c', name: 'update_scratchpad', input: {} }]),
    ]);
    const forced = request(['update_scratchpad'], { name: 'update_scratchpad' });
    const response = await completeForcedCall(provider, forced);
    expect(response.corrected).toBe(true);
    expect(response.usage.outputTokens).toBe(10);
    expect(provider.requests[1]?.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'I will remember that.' },
      { role: 'user', content: expect.stringContaining('must call the tool "update_scratchpad"') },
    ]);
  });

  it('never retries a reply that made the call, nor a request that forced nothing', async () => {
    const call = reply('{"tool": "update_scratchpad", "args": {}}');
    expect(makesForcedCall(request(['update_scratchpad'], { name: 'update_scratchpad' }), call)).toBe(true);
    expect(makesForcedCall(request(['echo', 'done'], 'any'), reply('{"tool": "shell", "args": {}}'))).toBe(false);
    const provider = new Replies([reply('Just text.')]);
    expect((await completeForcedCall(provider, request(['echo'], 'auto'))).corrected).toBeUndefined();
    expect(provider.requests).toHaveLength(1);
  });

  it('never retries a call the output cap cut: the same cap would cut the retry, at the cost of another cap', async () => {
    const forced = request(['update_scratchpad'], { name: 'update_scratchpad' });
    const cuts: ModelResponse[] = [
      { ...reply('{"identity_user": "Ada, Ada, Ada, Ada'), stopReason: 'length' },
      { ...reply('```json\n{"identity_user": "Ada, Ada'), stopReason: 'length' },
      { ...reply('', [{ id: 'c', name: 'update_scratchpad', input: 'not JSON' }]), stopReason: 'max_tokens' },
    ];
    for (const cut of cuts) {
      const provider = new Replies([cut, reply('', [{ id: 'c', name: 'update_scratchpad', input: {} }])]);
      expect(await completeForcedCall(provider, forced)).toEqual(cut);
      expect(provider.requests).toHaveLength(1);
    }
    // Cut while still in prose, the reply had not begun the call: it is asked again.
    const prose = { ...reply('Let me think about what to remember here, and then'), stopReason: 'length' };
    const provider = new Replies([prose, reply('', [{ id: 'c', name: 'update_scratchpad', input: {} }])]);
    expect((await completeForcedCall(provider, forced)).corrected).toBe(true);
  });

  it('returns a second miss as it is, for the workflow to note', async () => {
    const provider = new Replies([reply('no'), reply('still no')]);
    const response = await completeForcedCall(provider, request(['update_scratchpad'], { name: 'update_scratchpad' }));
    expect(response).toMatchObject({ text: 'still no', toolCalls: [], corrected: true });
  });
});

describe('never silent, output caps, specs', () => {
  const record = (memory?: boolean): CycleRecord => ({
    cycleId: 'c',
    trigger: 'chat',
    outcome: 'completed',
    iterations: 1,
    usage: ZERO_USAGE,
    directives: [],
    ...(memory !== undefined && { memoryChanged: memory }),
  });

  it('counts the latest cycles in a row that left the memory as it was', () => {
    expect(turnsSinceMemoryChanged([record(false), record(true), record(false), record(), record(false)])).toBe(2);
    expect(turnsSinceMemoryChanged([record(true)])).toBe(0);
    expect(turnsSinceMemoryChanged([])).toBe(0);
  });

  it('a changed note is no memory change; a section is', () => {
    const before = defaultScratchpad('Test');
    expect(memoryChanged(before, { ...before, notes: '[REFLECT] no update', last_updated: 'now' })).toBe(false);
    expect(memoryChanged(before, { ...before, workspace: 'draft' })).toBe(true);
  });

  it('caps output by phase, and knows a cut reply', () => {
    expect(outputCap({}, 'respond')).toBe(1024);
    expect(outputCap({ maxOutputTokens: { reflect: 300 } }, 'reflect')).toBe(300);
    expect(outputCap({ maxOutputTokens: { reflect: 300 } }, 'task')).toBe(2048);
    expect(isCut({ stopReason: 'length' })).toBe(true);
    expect(isCut({ stopReason: 'max_tokens' })).toBe(true);
    expect(isCut({ stopReason: 'stop' })).toBe(false);
    expect(parseOutputCaps('respond=64, reflect=256')).toEqual({ respond: 64, reflect: 256 });
    expect(parseOutputCaps('512')).toEqual({ respond: 512, reflect: 512, task: 512 });
    expect(() => parseOutputCaps('respond=8')).toThrow(/not from 16 to 128000/);
    expect(() => parseOutputCaps('answer=64')).toThrow(/PHASE=TOKENS/);
  });

  it('reads #tools, #json and #text, and no mark as auto', () => {
    expect(parseModelSpec('openai:m@http://h/v1')).toMatchObject({ protocol: 'auto' });
    expect(parseModelSpec('openai:m@http://h/v1#json')).toMatchObject({ protocol: 'json', baseURL: 'http://h/v1' });
    expect(parseModelSpec('openai:m@http://h/v1#tools')).toMatchObject({ protocol: 'tools' });
    expect(() => parseModelSpec('openai:m@http://h/v1#grammar')).toThrow(/#tools\|#json\|#text/);
  });
});
