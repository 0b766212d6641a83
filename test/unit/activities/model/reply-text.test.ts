import { jsonModeOf } from '../../../../src/activities/model/json-mode';
import { replyTextOf } from '../../../../src/activities/model/reply-text';
import type { ProviderRequest } from '../../../../src/activities/model/provider';

const echo = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: {} } };
const request = (toolChoice: ProviderRequest['toolChoice']): ProviderRequest => ({
  system: 'respond',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [echo],
  toolChoice,
  maxTokens: 64,
});

/** What a listener made by `replyTextOf` passes on of `pieces`, fed in order. */
function shown(make: (onText: (text: string) => void) => ((text: string) => void) | undefined, pieces: string[]) {
  const out: string[] = [];
  const listener = make((text) => out.push(text));
  for (const piece of pieces) listener?.(piece);
  return out;
}

describe('what of a streamed reply a person reads as it comes', () => {
  it('native tool calling: the text as it is', () => {
    expect(shown((onText) => replyTextOf('tools', undefined, onText), ['Hel', 'lo'])).toEqual(['Hel', 'lo']);
  });

  it('#json: the reply branch’s string decoded piece by piece, escapes split across pieces included', () => {
    const json = jsonModeOf(request('auto'));
    const pieces = ['{"re', 'ply": "Tab', '\\', 'there\\u00', 'e9 \\"', 'quoted\\"', '"}'];
    const out = shown((onText) => replyTextOf('json', json, onText), pieces);
    expect(out.join('')).toBe('Tab\there\u00e9 "quoted"');
    expect(JSON.parse(pieces.join('')).reply).toBe(out.join(''));
  });

  it('#json: nothing of a call, and nothing under a forced call', () => {
    expect(
      shown((onText) => replyTextOf('json', jsonModeOf(request('auto')), onText), ['{"tool": "echo", ', '"args": {}}']),
    ).toEqual([]);
    expect(replyTextOf('json', jsonModeOf(request({ name: 'echo' })), () => undefined)).toBeUndefined();
  });

  it('#text: free text from its first visible character, nothing of a reply that opens as JSON or a fence', () => {
    expect(shown((onText) => replyTextOf('text', undefined, onText), ['  ', 'Hi', ' there'])).toEqual([
      '  Hi',
      ' there',
    ]);
    expect(shown((onText) => replyTextOf('text', undefined, onText), [' {"tool"', ': "echo"}'])).toEqual([]);
    expect(shown((onText) => replyTextOf('text', undefined, onText), ['```json', '{}```'])).toEqual([]);
  });
});
