import { compactSchema } from '../../src/activities/model/json-protocol';
import { OpenAICompatibleProvider } from '../../src/activities/model/openai';
import { createModelResolver } from '../../src/activities/model/registry';
import type { ModelRequest } from '../../src/core/cycle/model';
import { parseAction } from '../../src/core/cycle/parse';
import { CYCLE_SYSTEM, RESPOND_SYSTEM } from '../../src/core/cycle/prompts';
import { RESEARCH_STRATEGY_SYSTEM } from '../../src/core/research/prompts';
import { PLAN_TOOL, planFromResponse, planPrompt, planRequest } from '../../src/core/research/plan';
import {
  TOOL_DESCRIPTIONS_BY_NAME as TOOL_DESCRIPTIONS,
  toolInputSchema,
} from '../../src/activities/model/tool-definitions';
import { failureOf, runCallModel } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';

const MODEL = 'qwen2.5:7b';

function completion(
  content: unknown,
  usage: unknown = { prompt_tokens: 900, completion_tokens: 25, total_tokens: 925 },
) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  };
}

const cycleRequest: ModelRequest = {
  system: 'cycle',
  messages: [{ role: 'user', content: '<scratchpad>...</scratchpad>' }],
  tools: ['echo', 'fs_read', 'done'],
  toolChoice: 'any',
  maxTokens: 512,
};

interface SentBody {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens: number;
  temperature: number;
}

let stub: HttpStub;
let resolveModel: ReturnType<typeof createModelResolver>;

beforeAll(async () => {
  stub = await startHttpStub();
  resolveModel = createModelResolver({ defaultSpec: `openai:${MODEL}@${stub.url}/v1#text` });
});
afterAll(() => stub.close());
beforeEach(() => stub.reset());

describe('OpenAICompatibleProvider through the callModel activity', () => {
  it('returns the answer as text that parseAction reads, even inside a code fence', async () => {
    stub.reply({ body: completion('Sure.\n```json\n{"tool": "echo", "args": {"message": "hi"}}\n```') });

    const response = await runCallModel(resolveModel, cycleRequest);

    expect(response).toEqual({
      text: 'Sure.\n```json\n{"tool": "echo", "args": {"message": "hi"}}\n```',
      toolCalls: [],
      stopReason: 'stop',
      usage: { inputTokens: 900, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: MODEL,
    });
    expect(parseAction(response)).toEqual({ ok: true, action: { tool: 'echo', args: { message: 'hi' } } });
  });

  it('sends the system prompt with the JSON protocol section, then the messages', async () => {
    stub.reply({ body: completion('{"tool": "done", "args": {"summary": "ok"}}') });

    await runCallModel(resolveModel, cycleRequest);

    expect(stub.received).toHaveLength(1);
    const [sent] = stub.received;
    expect(sent?.url).toBe('/v1/chat/completions');
    const body = sent?.body as SentBody;
    expect(body).toMatchObject({ model: MODEL, max_tokens: 512, temperature: 0 });
    expect(body.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(body.messages[1]?.content).toBe('<scratchpad>...</scratchpad>');
    const system = body.messages[0]?.content ?? '';
    expect(system.startsWith(CYCLE_SYSTEM)).toBe(true);
    expect(system).toContain('Reply with exactly one JSON object');
    expect(system).toContain('{"tool": "<name>", "args": {...}}');
    expect(system).toContain(`- echo: ${TOOL_DESCRIPTIONS.echo}`);
    expect(system).toContain('args: {"path": string, "encoding"?: "utf-8" | "binary"}');
    expect(system).toContain('path: Path relative to the sandbox root');
    expect(system).toContain(`- done: ${TOOL_DESCRIPTIONS.done}`);
    expect(system).not.toContain('- shell:');
    expect(sent?.headers.authorization).toBeUndefined();
  });

  it("asks for the supervisor's plan in the JSON protocol and reads the plan from a fenced reply", async () => {
    const plan = { goal: 'Sizes', entities: ['Acme'], fields: ['revenue', 'employees'] };
    stub.reply({ body: completion(`Plan:\n\`\`\`json\n${JSON.stringify({ tool: PLAN_TOOL, args: plan })}\n\`\`\``) });
    const given = { question: 'How large is Acme?' };

    const response = await runCallModel(resolveModel, planRequest([{ role: 'user', content: planPrompt(given) }]));

    expect(planFromResponse(response, given)).toEqual({ ok: true, plan });
    const system = (stub.received[0]?.body as SentBody).messages[0]?.content ?? '';
    expect(system.startsWith(RESEARCH_STRATEGY_SYSTEM)).toBe(true);
    expect(system).toContain(`- plan_research: ${TOOL_DESCRIPTIONS.plan_research}`);
    expect(system).toContain('args: {"goal": string, "entities": string[], "fields": string[], "aliases"?: {}}');
    expect(system).toContain('This reply MUST use the tool "plan_research".');
  });

  it('names the required tool when toolChoice names one', async () => {
    stub.reply({ body: completion('{"tool": "update_scratchpad", "args": {}}') });

    await runCallModel(resolveModel, {
      system: 'reflect',
      messages: [{ role: 'user', content: 'exchange' }],
      tools: ['update_scratchpad'],
      toolChoice: { name: 'update_scratchpad' },
    });

    const system = (stub.received[0]?.body as SentBody).messages[0]?.content ?? '';
    expect(system).toContain('This reply MUST use the tool "update_scratchpad".');
    // Each key with the type the update is checked against; the sections, all plain text, named once.
    expect(system).toContain(
      'args: {"goals"?: string | string[], "current_task"?: string | null, "pending_actions"?: string | string[], ' +
        '"completed_tasks"?: string | (string | {"task": string, "summary": string})[], "<key>"?: string} ' +
        'with <key> one of notes, identity_purpose, ',
    );
    expect(system).toContain('trajectory_now');
  });

  it("flattens a chat turn's tool use to the text block small models read, on the JSON text protocol", async () => {
    stub.reply({ body: completion('The echo said hi.') });

    await runCallModel(resolveModel, {
      system: 'respond',
      messages: [
        { role: 'user', content: '<current_understanding>...</current_understanding>' },
        { role: 'assistant', content: 'Understood.' },
        { role: 'user', content: 'Echo hi' },
        {
          role: 'assistant',
          content: '{"tool": "echo", "args": {"message": "hi"}}',
          toolCalls: [{ id: 'call_1_1', name: 'echo', input: { message: 'hi' } }],
        },
        { role: 'tool', toolCallId: 'call_1_1', name: 'echo', content: 'ECHO: hi' },
      ],
      tools: ['echo'],
    });

    const body = stub.received[0]?.body as SentBody;
    expect(body.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(body.messages[3]).toEqual({
      role: 'user',
      content: 'Echo hi\n\n<tool_results_this_turn>\n- echo({"message":"hi"}) → ECHO: hi\n</tool_results_this_turn>',
    });
    expect(body).not.toHaveProperty('tools');
  });

  it('sends the bare system prompt when no tools are offered', async () => {
    stub.reply({ body: completion('Hello!', null) });

    const response = await runCallModel(resolveModel, {
      system: 'respond',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
    });

    expect((stub.received[0]?.body as SentBody).messages[0]).toEqual({ role: 'system', content: RESPOND_SYSTEM });
    expect(response.text).toBe('Hello!');
    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('sends the API key as a bearer token when configured', async () => {
    const provider = new OpenAICompatibleProvider({
      model: MODEL,
      baseURL: `${stub.url}/v1/`,
      apiKey: 'local-key',
      protocol: 'text',
    });
    stub.reply({ body: completion('{"tool": "done", "args": {"summary": "ok"}}') });

    await runCallModel(() => provider, cycleRequest);

    expect(stub.received[0]?.url).toBe('/v1/chat/completions');
    expect(stub.received[0]?.headers.authorization).toBe('Bearer local-key');
  });

  it('maps 503 to a retryable Overloaded honouring retry-after-ms', async () => {
    stub.reply({
      status: 503,
      headers: { 'retry-after-ms': '1500' },
      body: { error: { message: 'model is loading', type: 'unavailable' } },
    });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure.type).toBe('ModelError.Overloaded');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(1500);
    expect(failure.message).toContain('503');
    expect(failure.message).toContain('model is loading');
  });

  it('maps 401 to a non-retryable Auth failure with the server message', async () => {
    stub.reply({ status: 401, body: { error: 'invalid api key' } });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure.type).toBe('ModelError.Auth');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('401');
    expect(failure.message).toContain('invalid api key');
  });

  it.each([
    ['no choices', { choices: [] }],
    ['null content', completion(null)],
    ['not JSON', '<html>proxy error</html>'],
  ])('maps a malformed body (%s) to a non-retryable BadResponse', async (_case, body) => {
    stub.reply({ body });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure.type).toBe('ModelError.BadResponse');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('choices[0].message.content');
  });

  it('maps a refused connection to a retryable Connection failure', async () => {
    const closed = await startHttpStub();
    await closed.close();
    const provider = new OpenAICompatibleProvider({ model: MODEL, baseURL: `${closed.url}/v1`, protocol: 'text' });

    const failure = await failureOf(runCallModel(() => provider, cycleRequest));

    expect(failure.type).toBe('ModelError.Connection');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('ECONNREFUSED');
  });

  it('maps a client timeout to a retryable Timeout', async () => {
    const provider = new OpenAICompatibleProvider({
      model: MODEL,
      baseURL: `${stub.url}/v1`,
      timeoutMs: 100,
      protocol: 'text',
    });
    stub.reply({ delayMs: 2000, body: completion('late') });

    const failure = await failureOf(runCallModel(() => provider, cycleRequest));

    expect(failure.type).toBe('ModelError.Timeout');
    expect(failure.nonRetryable).toBe(false);
  });

  it('streams each request, and reads a server that answers with one JSON body anyway', async () => {
    const provider = new OpenAICompatibleProvider({ model: MODEL, baseURL: `${stub.url}/v1`, protocol: 'text' });
    const call = (summary: string) => JSON.stringify({ tool: 'done', args: { summary } });
    stub.reply(
      { body: completion(call('streamed in pieces')) },
      { body: JSON.stringify(completion(call('one body'))) },
    );

    const streamed = await runCallModel(() => provider, cycleRequest);
    const whole = await runCallModel(() => provider, cycleRequest);

    expect(stub.received[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(streamed.text).toBe(call('streamed in pieces'));
    expect(streamed.usage.outputTokens).toBe(25);
    expect(whole.text).toBe(call('one body'));
  });

  it("the worker's model timeout bounds each request of a resolved spec", async () => {
    const spec = `openai:${MODEL}@${stub.url}/v1#text`;
    const resolve = createModelResolver({ defaultSpec: spec, timeoutMs: 150 });
    stub.reply({ delayMs: 2000, body: completion('late') });

    const failure = await failureOf(runCallModel(resolve, cycleRequest));

    expect(failure.type).toBe('ModelError.Timeout');
    expect(failure.message).toContain('after 150 ms');
  });
});

describe('compactSchema', () => {
  it('sketches tool argument schemas on one line', () => {
    expect(compactSchema(toolInputSchema('shell'))).toBe('{"command": string, "timeout_ms"?: integer}');
  });

  it('names many optional keys of one type once, and keeps a required key of that type', () => {
    const text = { type: 'string' };
    const schema = { type: 'object', properties: { id: text, a: text, b: text, c: text, d: text }, required: ['id'] };
    expect(compactSchema(schema)).toBe('{"id": string, "<key>"?: string} with <key> one of a, b, c, d');
  });
});
