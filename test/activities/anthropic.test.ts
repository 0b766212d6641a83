import { CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleOption } from '@temporalio/worker';
import { AnthropicProvider } from '../../src/activities/model/anthropic';
import { createModelResolver } from '../../src/activities/model/registry';
import { ModelError } from '../../src/common/failure-types';
import type { CycleResult } from '../../src/core/cycle/input';
import type { AgentCycleInput as CycleInput } from '../../src/core/agent/cycle-input';
import type { ModelRequest } from '../../src/core/cycle/model';
import { CYCLE_SYSTEM, REFLECT_SYSTEM } from '../../src/core/cycle/prompts';
import { RESEARCH_STRATEGY_SYSTEM } from '../../src/core/research/prompts';
import { PLAN_TOOL, planFromResponse, planPrompt, planRequest } from '../../src/core/research/plan';
import {
  TOOL_DESCRIPTIONS_BY_NAME as TOOL_DESCRIPTIONS,
  toolInputSchema,
} from '../../src/activities/model/tool-definitions';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { waitFor } from '../helpers/temporal';
import { providerWorker, startAgentCycle, useWorkflowEnvironment } from '../helpers/worker';
import { failureOf, quietEnvironment, runCallModel } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';

// Not claude-sonnet-4-5: the installed SDK warns that it is deprecated on every call.
const MODEL = 'claude-sonnet-4-6';

function message(content: unknown[], overrides: Record<string, unknown> = {}) {
  return {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    stop_reason: 'tool_use',
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 120,
      output_tokens: 30,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: null,
    },
    ...overrides,
  };
}

function apiError(type: string, text: string) {
  return { type: 'error', error: { type, message: text }, request_id: 'req_01' };
}

const cycleRequest: ModelRequest = {
  system: 'cycle',
  messages: [{ role: 'user', content: '<scratchpad>...</scratchpad>' }],
  tools: ['echo', 'done'],
  toolChoice: 'any',
};

let stub: HttpStub;
let resolveModel: ReturnType<typeof createModelResolver>;

beforeAll(async () => {
  stub = await startHttpStub();
  resolveModel = createModelResolver({
    defaultSpec: `anthropic:${MODEL}`,
    anthropicApiKey: 'sk-test',
    anthropicBaseURL: stub.url,
  });
});
afterAll(() => stub.close());
beforeEach(() => stub.reset());

describe('AnthropicProvider through the callModel activity', () => {
  it('returns native tool calls and sends a cached system prompt, tools and tool_choice', async () => {
    stub.reply({
      body: message([
        { type: 'text', text: 'Checking tools.', citations: null },
        { type: 'tool_use', id: 'toolu_01', name: 'echo', input: { message: 'hi' }, caller: { type: 'direct' } },
      ]),
    });

    const response = await runCallModel(resolveModel, cycleRequest);

    expect(response).toEqual({
      text: 'Checking tools.',
      toolCalls: [{ id: 'toolu_01', name: 'echo', input: { message: 'hi' } }],
      stopReason: 'tool_use',
      usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: MODEL,
    });
    expect(stub.received).toHaveLength(1);
    const [sent] = stub.received;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/v1/messages');
    expect(JSON.stringify(sent?.headers)).toContain('sk-test');
    expect(sent?.body).toEqual({
      model: MODEL,
      max_tokens: 2048,
      system: [{ type: 'text', text: CYCLE_SYSTEM, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: '<scratchpad>...</scratchpad>' }],
      tools: [
        { name: 'echo', description: TOOL_DESCRIPTIONS.echo, input_schema: toolInputSchema('echo') },
        { name: 'done', description: TOOL_DESCRIPTIONS.done, input_schema: toolInputSchema('done') },
      ],
      tool_choice: { type: 'any' },
    });
    expect(toolInputSchema('echo')).toMatchObject({ type: 'object', required: ['message'] });
  });

  it("forces the supervisor's plan_research tool, whose schema carries the board limits, and reads the plan back", async () => {
    const plan = { goal: 'Sizes', entities: ['Acme', 'Globex'], fields: ['revenue'] };
    stub.reply({
      body: message([{ type: 'tool_use', id: 'toolu_02', name: PLAN_TOOL, input: plan, caller: { type: 'direct' } }]),
    });
    const given = { question: 'How large are Acme and Globex?' };
    const response = await runCallModel(resolveModel, planRequest([{ role: 'user', content: planPrompt(given) }]));

    expect(planFromResponse(response, given)).toEqual({ ok: true, plan });
    const body = stub.received[0]?.body as Record<string, unknown>;
    expect(body.system).toEqual([
      { type: 'text', text: RESEARCH_STRATEGY_SYSTEM, cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: PLAN_TOOL });
    expect(body.tools).toEqual([
      { name: PLAN_TOOL, description: TOOL_DESCRIPTIONS.plan_research, input_schema: toolInputSchema('plan_research') },
    ]);
    expect(toolInputSchema('plan_research')).toMatchObject({
      required: ['goal', 'entities', 'fields'],
      properties: { entities: { maxItems: 64, items: { maxLength: 200 } }, goal: { maxLength: 2000 } },
    });
  });

  it('returns end_turn text and records cache read and write tokens', async () => {
    stub.reply({
      body: message([{ type: 'text', text: 'Hello there.', citations: null }], {
        stop_reason: 'end_turn',
        usage: { ...message([]).usage, cache_creation_input_tokens: 1500, cache_read_input_tokens: 2200 },
      }),
    });

    const response = await runCallModel(resolveModel, {
      system: 'respond',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      maxTokens: 256,
    });

    expect(response.text).toBe('Hello there.');
    expect(response.toolCalls).toEqual([]);
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toEqual({
      inputTokens: 120,
      outputTokens: 30,
      cacheReadTokens: 2200,
      cacheWriteTokens: 1500,
    });
    const body = stub.received[0]?.body as Record<string, unknown>;
    expect(body.max_tokens).toBe(256);
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('forces a named tool with tool_choice {type: tool}', async () => {
    stub.reply({
      body: message([
        { type: 'tool_use', id: 'toolu_02', name: 'update_scratchpad', input: {}, caller: { type: 'direct' } },
      ]),
    });

    await runCallModel(resolveModel, {
      system: 'reflect',
      messages: [{ role: 'user', content: 'exchange' }],
      tools: ['update_scratchpad'],
      toolChoice: { name: 'update_scratchpad' },
    });

    const body = stub.received[0]?.body as Record<string, unknown>;
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'update_scratchpad' });
    expect(body.system).toEqual([{ type: 'text', text: REFLECT_SYSTEM, cache_control: { type: 'ephemeral' } }]);
  });

  it('maps 429 with retry-after seconds to a retryable RateLimit with that delay, without SDK retries', async () => {
    stub.reply({ status: 429, headers: { 'retry-after': '7' }, body: apiError('rate_limit_error', 'Slow down') });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure.type).toBe('ModelError.RateLimit');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(7000);
    expect(failure.message).toContain('429');
    expect(failure.message).toContain('Slow down');
    expect(stub.received).toHaveLength(1);
  });

  it('maps 529 overloaded with an HTTP-date retry-after to a retryable Overloaded', async () => {
    const retryAt = new Date(Date.now() + 30_000).toUTCString();
    stub.reply({ status: 529, headers: { 'retry-after': retryAt }, body: apiError('overloaded_error', 'Overloaded') });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure.type).toBe('ModelError.Overloaded');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeGreaterThan(25_000);
    expect(failure.nextRetryDelay).toBeLessThanOrEqual(30_000);
    expect(failure.message).toContain('529');
    expect(stub.received).toHaveLength(1);
  });

  it.each([
    [400, 'invalid_request_error', 'ModelError.BadRequest'],
    [401, 'authentication_error', 'ModelError.Auth'],
  ])('maps %i to a non-retryable failure', async (status, errorType, expectedType) => {
    stub.reply({ status, body: apiError(errorType, `provider says ${status}`) });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure.type).toBe(expectedType);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toContain(String(status));
    expect(failure.message).toContain(`provider says ${status}`);
    expect(stub.received).toHaveLength(1);
  });

  it('honours x-should-retry from the server over the status, keeping the SDK error as the cause', async () => {
    stub.reply(
      { status: 429, headers: { 'x-should-retry': 'false' }, body: apiError('rate_limit_error', 'Do not retry') },
      { status: 400, headers: { 'x-should-retry': 'true' }, body: apiError('invalid_request_error', 'Try again') },
    );

    const refused = await failureOf(runCallModel(resolveModel, cycleRequest));
    const retried = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(refused).toMatchObject({ type: ModelError.RateLimit, nonRetryable: true });
    expect(retried).toMatchObject({ type: ModelError.RetryRequested, nonRetryable: false });
    expect(retried.message).toContain('Try again');
    expect(retried.cause?.message).toContain('Try again');
    expect(stub.received).toHaveLength(2);
  });

  it('rejects an unknown tool name before calling the API', async () => {
    const failure = await failureOf(runCallModel(resolveModel, { ...cycleRequest, tools: ['echo', 'teleport'] }));

    expect(failure.type).toBe('ModelError.BadRequest');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('teleport');
    expect(stub.received).toHaveLength(0);
  });

  it('maps a client timeout to a retryable Timeout', async () => {
    const provider = new AnthropicProvider({ model: MODEL, apiKey: 'sk-test', baseURL: stub.url, timeoutMs: 100 });
    stub.reply({ delayMs: 2000, body: message([]) });

    const failure = await failureOf(runCallModel(() => provider, cycleRequest));

    expect(failure.type).toBe('ModelError.Timeout');
    expect(failure.nonRetryable).toBe(false);
    expect(stub.received).toHaveLength(1);
  });

  it('maps a refused connection to a retryable Connection failure', async () => {
    const closed = await startHttpStub();
    await closed.close();
    const provider = new AnthropicProvider({ model: MODEL, apiKey: 'sk-test', baseURL: closed.url });

    const failure = await failureOf(runCallModel(() => provider, cycleRequest));

    expect(failure.type).toBe('ModelError.Connection');
    expect(failure.nonRetryable).toBe(false);
  });

  it('reports activity cancellation as cancellation, not as a model error', async () => {
    stub.reply({ delayMs: 5000, body: message([]) });
    const environment = quietEnvironment();
    const pending = runCallModel(resolveModel, cycleRequest, environment);
    await waitFor(() => stub.received.length > 0, { intervalMs: 10 });

    environment.cancel();

    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
  });
});

describe('a chat turn on Claude with a tool call', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

  it('sends the call back as a tool_use block and its result as a tool_result with the same id', async () => {
    const echo = {
      type: 'tool_use',
      id: 'toolu_01echo',
      name: 'echo',
      input: { message: 'hi' },
      caller: { type: 'direct' },
    };
    stub.reply(
      { body: message([{ type: 'text', text: 'Let me echo.', citations: null }, echo]) },
      { body: message([{ type: 'text', text: 'It said ECHO: hi.', citations: null }], { stop_reason: 'end_turn' }) },
    );
    const { worker, taskQueue } = await providerWorker(env, bundle, resolveModel, 'test-anthropic-chat');
    const agentId = `anthropic-chat-${Date.now()}`;
    const input: CycleInput = {
      agentId,
      before: defaultScratchpad('Claude chat'),
      kind: 'chat',
      message: 'Echo hi',
      twoPhase: false,
    };

    const result: CycleResult = await worker.runUntil(
      startAgentCycle(env, taskQueue, input).then((handle) => handle.result()),
    );

    expect(result.outcome).toBe('completed');
    expect(result.reply).toBe('It said ECHO: hi.');
    expect(stub.received).toHaveLength(2);
    const sent = (stub.received[1]?.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent.map((entry) => entry.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent[2]?.content).toBe('Echo hi');
    expect(sent[3]?.content).toEqual([
      { type: 'text', text: 'Let me echo.' },
      { type: 'tool_use', id: 'toolu_01echo', name: 'echo', input: { message: 'hi' } },
    ]);
    // The next iteration repeats this request, so its end is a cache breakpoint (test/activities/anthropic-cache.test.ts).
    expect(sent[4]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01echo', content: 'ECHO: hi', cache_control: { type: 'ephemeral' } },
    ]);
  });
});
