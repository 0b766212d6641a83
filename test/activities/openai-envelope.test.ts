import { createModelResolver } from '../../src/activities/model/registry';
import type { ModelRequest } from '../../src/core/cycle/model';
import { parseAction } from '../../src/core/cycle/parse';
import { runCallModel } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';

const MODEL = 'qwen2.5-coder:7b';

function completion(content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 20 },
  };
}

const stageRequest: ModelRequest = {
  system: 'staged',
  messages: [{ role: 'user', content: 'Stage 1 of 2: write sum.js' }],
  tools: ['fs_read', 'fs_write', 'write_files', 'update_scratchpad', 'done'],
  toolChoice: 'any',
};
const planRequest: ModelRequest = {
  system: 'staged_plan',
  messages: [{ role: 'user', content: 'Task: build a todo API' }],
  tools: ['plan'],
  toolChoice: 'any',
};

let stub: HttpStub;
let resolveModel: ReturnType<typeof createModelResolver>;

beforeAll(async () => {
  stub = await startHttpStub();
  resolveModel = createModelResolver({ defaultSpec: `openai:${MODEL}@${stub.url}/v1#text` });
});
afterAll(() => stub.close());
beforeEach(() => stub.reset());

function sentSystem(): string {
  const body = stub.received[0]?.body as { messages: { role: string; content: string }[] };
  return body.messages[0]?.content ?? '';
}

describe('the OpenAI-compatible adapter speaks the seed 004 envelope in staged runs', () => {
  it('reads files wrapped in prose and a code fence as one write_files action, with the scratchpad', async () => {
    const reply =
      'Here is the stage.\n```json\n{"files": [{"path": "sum.js", "content": "exports.sum = (a, b) => a + b;\\n"},' +
      ' {"path": "sum.test.js", "content": "// {not json}\\n"}], "scratchpad": {"next": "tests"}, "status": "done"}\n```\nDone!';
    stub.reply({ body: completion(reply) });
    const response = await runCallModel(resolveModel, stageRequest);
    expect(sentSystem()).toContain('{"files": [{"path": "<relative path>", "content": "<whole file>"}]');
    expect(parseAction(response)).toEqual({
      ok: true,
      action: {
        tool: 'write_files',
        callId: 'envelope',
        args: {
          files: [
            { path: 'sum.js', content: 'exports.sum = (a, b) => a + b;\n' },
            { path: 'sum.test.js', content: '// {not json}\n' },
          ],
          scratchpad: { next: 'tests' },
        },
      },
    });
  });

  it('reads files: [] claiming completion as done, which the staged run then corrects', async () => {
    stub.reply({ body: completion('{"files": [], "status": "stage complete"}') });
    const response = await runCallModel(resolveModel, stageRequest);
    expect(response.toolCalls).toEqual([{ id: 'envelope', name: 'done', input: { summary: 'stage complete' } }]);
  });

  it('reads the plan-only turn as the plan tool, and asks for no files', async () => {
    stub.reply({ body: completion('Plan:\n{"plan": ["schema", "routes", "tests"], "scratchpad": "plan first"}') });
    const response = await runCallModel(resolveModel, planRequest);
    expect(sentSystem()).toContain('Write no files in this reply.');
    expect(response.toolCalls).toEqual([
      { id: 'envelope', name: 'plan', input: { stages: ['schema', 'routes', 'tests'], scratchpad: 'plan first' } },
    ]);
  });

  it('leaves a reply with no envelope to the text protocol, and other requests untouched', async () => {
    // A forced call that does not come gets one corrective retry, which misses again here.
    const noEnvelope = { body: completion('I am not sure what to do.') };
    stub.reply(noEnvelope, noEnvelope);
    const response = await runCallModel(resolveModel, stageRequest);
    expect(response.toolCalls).toEqual([]);
    expect(response.corrected).toBe(true);
    expect(parseAction(response).ok).toBe(false);
    expect(stub.received).toHaveLength(2);
    const retried = stub.received[1]?.body as { messages: { role: string; content: string }[] };
    expect(retried.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'I am not sure what to do.' },
      { role: 'user', content: expect.stringContaining('Your last reply did not call one of the tools.') },
    ]);

    const files = { body: completion('{"files": [{"path": "a", "content": "b"}]}') };
    stub.reply(files, files);
    const cycle = await runCallModel(resolveModel, { ...stageRequest, system: 'cycle' });
    expect(cycle.toolCalls).toEqual([]);
    expect(stub.received).toHaveLength(4);
  });

  it('rejects a malformed envelope rather than guessing', async () => {
    const malformed = { body: completion('{"files": [{"path": 7}]}') };
    stub.reply(malformed, malformed);
    const response = await runCallModel(resolveModel, stageRequest);
    expect(response.toolCalls).toEqual([]);
    expect(response.corrected).toBe(true);
  });
});
