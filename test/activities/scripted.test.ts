import { offeredTools } from '../../src/activities/model/offered-tools';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import type { ModelRequest } from '../../src/core/cycle/model';
import { parseAction } from '../../src/core/cycle/parse';
import { CYCLE_SYSTEM } from '../../src/core/cycle/prompts';
import { failureOf, runCallModel } from './call-model';

let directory: string;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scripted-test-'));
});
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

function writeScript(name: string, lines: string[]): string {
  const file = path.join(directory, name);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

function request(content: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'cycle', messages: [{ role: 'user', content }], tools: ['echo', 'done'], ...overrides };
}

describe('ScriptedProvider', () => {
  it('replays entries in order through the activity and records every request', async () => {
    const provider = new ScriptedProvider([
      { tool: 'echo', args: { message: 'one' } },
      { text: '```json\n{"tool": "done", "args": {"summary": "two"}}\n```' },
      { text: 'Calling echo.', tool: 'echo', args: { message: 'three' } },
    ]);

    const first = await runCallModel(() => provider, request('first'));
    const second = await runCallModel(() => provider, request('second', { toolChoice: 'any' }));
    const third = await runCallModel(() => provider, request('third'));

    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'echo', input: { message: 'one' } }]);
    expect(first.text).toBe('');
    expect(first.stopReason).toBe('tool_use');
    expect(parseAction(second)).toEqual({ ok: true, action: { tool: 'done', args: { summary: 'two' } } });
    expect(second.toolCalls).toEqual([]);
    expect(second.stopReason).toBe('end_turn');
    expect(third).toMatchObject({ text: 'Calling echo.', toolCalls: [{ id: 'call_3', name: 'echo' }] });
    expect(provider.requests.map((received) => received.messages[0]?.content)).toEqual(['first', 'second', 'third']);
    expect(provider.requests[1]).toEqual({
      system: 'cycle',
      messages: [{ role: 'user', content: 'second' }],
      tools: ['echo', 'done'],
      toolChoice: 'any',
      maxTokens: 2048,
    });
    expect(provider.remaining).toBe(0);
  });

  it('estimates usage from characters unless the entry gives it', async () => {
    const provider = new ScriptedProvider([
      { text: 'x'.repeat(40) },
      { text: 'y', usage: { inputTokens: 5, cacheReadTokens: 3 } },
    ]);

    const estimated = await provider.complete({
      ...request('abcd'),
      tools: offeredTools(['echo', 'done']),
      toolChoice: 'auto',
      maxTokens: 10,
    });
    const given = await provider.complete({
      ...request('abcd'),
      tools: offeredTools(['echo', 'done']),
      toolChoice: 'auto',
      maxTokens: 10,
    });

    expect(estimated.usage).toEqual({
      inputTokens: Math.round((CYCLE_SYSTEM.length + 4) / 4),
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(given.usage).toEqual({ inputTokens: 5, outputTokens: 0, cacheReadTokens: 3, cacheWriteTokens: 0 });
  });

  it('throws the ApplicationFailure an error entry describes, then carries on', async () => {
    const provider = new ScriptedProvider([
      { error: { type: 'ModelError.Overloaded', message: 'busy', nonRetryable: false } },
      { error: { type: 'ModelError.Auth', message: 'bad key', nonRetryable: true } },
      { tool: 'done', args: { summary: 'ok' } },
    ]);

    const overloaded = await failureOf(runCallModel(() => provider, request('a')));
    const auth = await failureOf(runCallModel(() => provider, request('b')));
    const response = await runCallModel(() => provider, request('c'));

    expect(overloaded).toMatchObject({ type: 'ModelError.Overloaded', message: 'busy', nonRetryable: false });
    expect(auth).toMatchObject({ type: 'ModelError.Auth', message: 'bad key', nonRetryable: true });
    expect(response.toolCalls[0]).toEqual({ id: 'call_3', name: 'done', input: { summary: 'ok' } });
    expect(provider.requests).toHaveLength(3);
  });

  it('fails loudly and non-retryably when the script runs out', async () => {
    const provider = new ScriptedProvider([{ text: 'only answer' }], 'demo-script');
    await runCallModel(() => provider, request('a'));

    const failure = await failureOf(runCallModel(() => provider, request('b')));

    expect(failure.type).toBe('ModelError.ScriptExhausted');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('demo-script');
    expect(failure.message).toContain('1 entries');
    expect(provider.requests).toHaveLength(2);
  });

  it('waits delayMs before answering', async () => {
    const provider = new ScriptedProvider([{ text: 'slow', delayMs: 50 }]);
    const started = Date.now();

    await provider.complete({ ...request('a'), tools: [], toolChoice: 'auto', maxTokens: 10 });

    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});

describe('ScriptedProvider.fromFile', () => {
  it('loads JSONL, skipping blank lines and // comments', async () => {
    const file = writeScript('ok.jsonl', [
      '// warm-up',
      '{"tool": "echo", "args": {"message": "hi"}}',
      '',
      '   ',
      '{"text": "not json at all"}',
      '{"error": {"type": "ModelError.RateLimit", "message": "slow down"}}',
    ]);
    const provider = ScriptedProvider.fromFile(file);

    expect(provider.spec).toBe(`scripted:${file}`);
    expect(provider.remaining).toBe(3);
    expect((await runCallModel(() => provider, request('a'))).toolCalls[0]?.name).toBe('echo');
    expect((await runCallModel(() => provider, request('b'))).text).toBe('not json at all');
    const failure = await failureOf(runCallModel(() => provider, request('c')));
    expect(failure).toMatchObject({ type: 'ModelError.RateLimit', nonRetryable: false });
    const exhausted = await failureOf(runCallModel(() => provider, request('d')));
    expect(exhausted.message).toContain(file);
    expect(exhausted.message).toContain('3 entries');
  });

  it.each([
    ['invalid JSON', '{"tool": "echo", '],
    ['an entry with nothing to say', '{"usage": {"inputTokens": 1}}'],
    ['an unknown key', '{"text": "hi", "tools": "echo"}'],
    ['error mixed with a call', '{"tool": "echo", "error": {"type": "X", "message": "m"}}'],
    ['args without a tool', '{"args": {"message": "hi"}}'],
  ])('reports %s with its line number', (_case, badLine) => {
    const file = writeScript('bad.jsonl', ['// header', '{"text": "fine"}', '', badLine]);

    expect(() => ScriptedProvider.fromFile(file)).toThrow(`${file} line 4`);
  });
});

describe('ScriptedProvider match entries', () => {
  it('answers by message content, keeps no position, and falls back to the ordered entries', async () => {
    const script = [
      { match: ['Iteration 2 of'], tool: 'done', args: { summary: 'second' } },
      { match: ['Iteration 1 of', 'task A'], tool: 'echo', args: { message: 'first' } },
      { text: 'in order' },
    ];
    // Two providers from the same script stand for a worker and the one started after it was killed.
    for (const provider of [new ScriptedProvider(script), new ScriptedProvider(script)]) {
      const resolve = () => provider;
      const second = await runCallModel(resolve, request('task A. Iteration 2 of 5.'));
      expect(second.toolCalls[0]).toMatchObject({ name: 'done', input: { summary: 'second' } });
      const first = await runCallModel(resolve, request('task A. Iteration 1 of 5.'));
      expect(first.toolCalls[0]).toMatchObject({ name: 'echo', input: { message: 'first' } });
      expect((await runCallModel(resolve, request('task B. Iteration 1 of 5.'))).text).toBe('in order');
      expect(provider.remaining).toBe(0);
    }
  });

  it('rejects an empty match list', () => {
    expect(() => new ScriptedProvider([{ match: [], text: 'x' }])).toThrow(/match/);
  });
});

describe('createModelResolver with scripted providers', () => {
  it('shares one scripted cursor per spec and serves registered providers', async () => {
    const file = writeScript('shared.jsonl', ['{"text": "first"}', '{"text": "second"}']);
    const injected = new ScriptedProvider([{ text: 'injected' }]);
    const resolveModel = createModelResolver({
      defaultSpec: `scripted:${file}`,
      providers: { 'scripted:test': injected },
    });

    expect((await runCallModel(resolveModel, request('a'))).text).toBe('first');
    expect((await runCallModel(resolveModel, request('b'))).text).toBe('second');
    expect((await runCallModel(resolveModel, request('c', { model: 'scripted:test' }))).text).toBe('injected');
    const late = new ScriptedProvider([{ text: 'registered later' }]);
    resolveModel.register('scripted:late', late);
    expect((await runCallModel(resolveModel, request('d', { model: 'scripted:late' }))).text).toBe('registered later');
    expect(resolveModel()).toBe(resolveModel(`scripted:${file}`));
  });

  it('fails non-retryably with the configuration help when no model is configured', async () => {
    const failure = await failureOf(runCallModel(createModelResolver({}), request('a')));

    expect(failure.type).toBe('ModelError.NotConfigured');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('SCRATCHPAD_MODEL (anthropic:MODEL, ');
    // It becomes a cycle's error, its notes and a progress line: one line, saying to restart the worker.
    expect(failure.message).not.toContain('\n');
    expect(failure.message).toContain('scratchpad down && scratchpad up');
  });

  it.each([
    ['an unparseable spec', 'gpt:4'],
    ['an anthropic spec without a key', 'anthropic:claude-sonnet-4-6'],
    ['a missing script file', 'scripted:/nonexistent/script.jsonl'],
  ])('fails non-retryably for %s', async (_case, spec) => {
    const failure = await failureOf(runCallModel(createModelResolver({ defaultSpec: spec }), request('a')));

    expect(failure.type).toBe('ModelError.NotConfigured');
    expect(failure.nonRetryable).toBe(true);
  });
});
