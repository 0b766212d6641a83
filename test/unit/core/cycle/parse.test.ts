import type { ModelResponse } from '../../../../src/core/cycle/model';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';
import { parseAction, parseTextAction } from '../../../../src/core/cycle/parse';

describe('JSON text protocol parser', () => {
  it('reads a bare object', () => {
    expect(parseTextAction('{"tool": "echo", "args": {"message": "hi"}}')).toEqual({
      ok: true,
      action: { tool: 'echo', args: { message: 'hi' } },
    });
  });

  it('tolerates a code fence and prose around one object', () => {
    const text = 'Sure, here is my action:\n```json\n{"tool": "done", "args": {"summary": "a } brace"}}\n```\nThanks!';
    expect(parseTextAction(text)).toEqual({ ok: true, action: { tool: 'done', args: { summary: 'a } brace' } } });
    expect(parseTextAction('I will call {"tool":"echo","args":{"message":"x"}} now')).toMatchObject({ ok: true });
  });

  it('defaults missing args to an empty object', () => {
    expect(parseTextAction('{"tool": "done"}')).toEqual({ ok: true, action: { tool: 'done', args: {} } });
  });

  it.each([
    ['', /empty/],
    ['I think we are finished.', /no JSON object/],
    ['{"tool": "echo", "args": {"message": "a"}} {"tool": "done"}', /found 2/],
    ['{"tool": "echo", "args": {"message": }}', /invalid JSON/],
    ['{"args": {}}', /no "tool"/],
    ['{"tool": "echo", "args": [1]}', /must be an object/],
  ])('fails on %j', (text, reason) => {
    const parsed = parseTextAction(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(reason);
  });

  it('prefers native tool calls over text', () => {
    const response: ModelResponse = {
      text: 'ignored {"tool":"done"}',
      toolCalls: [{ id: 'toolu_1', name: 'echo', input: { message: 'm' } }],
      stopReason: 'tool_use',
      usage: ZERO_USAGE,
      model: 'm',
    };
    expect(parseAction(response)).toEqual({
      ok: true,
      action: { tool: 'echo', args: { message: 'm' }, callId: 'toolu_1' },
    });
  });
});
