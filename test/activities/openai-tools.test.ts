import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleOption } from '@temporalio/worker';
import { offeredTools } from '../../src/activities/model/offered-tools';
import { createModelResolver } from '../../src/activities/model/registry';
import { TOOL_DESCRIPTIONS_BY_NAME, toolInputSchema } from '../../src/activities/model/tool-definitions';
import { traceQuery } from '../../src/common/messages/cycle';
import type { CycleResult } from '../../src/core/cycle/input';
import type { AgentCycleInput as CycleInput } from '../../src/core/agent/cycle-input';
import type { ModelRequest } from '../../src/core/cycle/model';
import { parseToolCalls } from '../../src/core/cycle/parse';
import { CYCLE_SYSTEM } from '../../src/core/cycle/prompts';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { providerWorker, startAgentCycle, useWorkflowEnvironment } from '../helpers/worker';
import { failureOf, runCallModel } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';

const MODEL = 'qwen2.5:7b';

/** A Chat Completions reply in the API's shape, with native tool calls. */
function completion(
  message: { content?: string | null; tool_calls?: { id?: string; name: string; arguments: string }[] },
  usage: Record<string, unknown> = { prompt_tokens: 1000, completion_tokens: 40, total_tokens: 1040 },
) {
  const toolCalls = message.tool_calls?.map(({ id, ...call }, index) => ({
    id: id ?? `call_${index + 1}`,
    type: 'function',
    function: call,
  }));
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: message.content ?? null, ...(toolCalls && { tool_calls: toolCalls }) },
        finish_reason: toolCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage,
  };
}

const cycleRequest: ModelRequest = {
  system: 'cycle',
  messages: [{ role: 'user', content: '<scratchpad>...</scratchpad>' }],
  tools: ['echo', 'fs_read', 'update_scratchpad', 'done'],
  toolChoice: 'any',
  maxTokens: 512,
};

interface SentBody {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description: string; parameters: unknown } }[];
  tool_choice?: unknown;
}

let stub: HttpStub;
let resolveModel: ReturnType<typeof createModelResolver>;

beforeAll(async () => {
  stub = await startHttpStub();
  // `#tools`: native tool calls without the probe a spec with no protocol sends first.
  resolveModel = createModelResolver({ defaultSpec: `openai:${MODEL}@${stub.url}/v1#tools` });
});
afterAll(() => stub.close());
beforeEach(() => stub.reset());

describe('OpenAI-compatible servers with native tool calling, through the official openai SDK', () => {
  it("sends every offered tool's JSON Schema, the bare system prompt and tool_choice", async () => {
    stub.reply({ body: completion({ tool_calls: [{ name: 'done', arguments: '{"summary":"ok"}' }] }) });

    await runCallModel(resolveModel, cycleRequest);

    const sent = stub.received[0]?.body as SentBody;
    expect(stub.received[0]?.url).toBe('/v1/chat/completions');
    expect(sent.messages[0]).toEqual({ role: 'system', content: CYCLE_SYSTEM });
    expect(sent.tools).toEqual(
      cycleRequest.tools.map((name) => ({
        type: 'function',
        function: {
          name,
          description: TOOL_DESCRIPTIONS_BY_NAME[name as keyof typeof TOOL_DESCRIPTIONS_BY_NAME],
          parameters: toolInputSchema(name as Parameters<typeof toolInputSchema>[0]),
        },
      })),
    );
    expect(sent.tool_choice).toBe('required');
    expect(stub.received[0]?.headers.authorization).toBeUndefined();
  });

  it('names the required function when the request names one, and sends no tools when none are offered', async () => {
    stub.reply(
      { body: completion({ tool_calls: [{ name: 'update_scratchpad', arguments: '{}' }] }) },
      { body: completion({ content: 'Hello.' }) },
    );

    await runCallModel(resolveModel, {
      ...cycleRequest,
      tools: ['update_scratchpad'],
      toolChoice: { name: 'update_scratchpad' },
    });
    await runCallModel(resolveModel, { ...cycleRequest, system: 'respond', tools: [], toolChoice: 'auto' });

    const [named, bare] = stub.received.map((request) => request.body as SentBody);
    expect(named?.tool_choice).toEqual({ type: 'function', function: { name: 'update_scratchpad' } });
    expect(bare).not.toHaveProperty('tools');
    expect(bare).not.toHaveProperty('tool_choice');
  });

  it("reads tool_calls as the reply's calls, several per reply, in order; arguments that are not JSON stay text", async () => {
    stub.reply({
      body: completion({
        content: 'Noting, then echoing.',
        tool_calls: [
          { name: 'update_scratchpad', arguments: '{"trajectory_now":"echo"}' },
          { name: 'echo', arguments: '{"message":"hi"}' },
          { name: 'fs_read', arguments: '{"path": ' },
        ],
      }),
    });

    const response = await runCallModel(resolveModel, cycleRequest);

    expect(response.text).toBe('Noting, then echoing.');
    expect(response.stopReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'update_scratchpad', input: { trajectory_now: 'echo' } },
      { id: 'call_2', name: 'echo', input: { message: 'hi' } },
      { id: 'call_3', name: 'fs_read', input: '{"path": ' },
    ]);
    expect(parseToolCalls(response)).toEqual({ ok: false, error: 'arguments of fs_read must be an object' });
    const parsed = parseToolCalls({ ...response, toolCalls: response.toolCalls.slice(0, 2) });
    expect(parsed).toMatchObject({ ok: true, native: true, calls: [{ tool: 'update_scratchpad' }, { tool: 'echo' }] });
  });

  it('counts cached prompt tokens apart, as cache reads', async () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 768 } };
    stub.reply({ body: completion({ content: 'ok' }, usage) });

    const response = await runCallModel(resolveModel, { ...cycleRequest, tools: [], toolChoice: 'auto' });

    expect(response.usage).toEqual({ inputTokens: 232, outputTokens: 40, cacheReadTokens: 768, cacheWriteTokens: 0 });
  });

  it('maps 429 to a retryable RateLimit honouring retry-after, and 404 to a non-retryable NotFound', async () => {
    stub.reply(
      { status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'slow down' } } },
      { status: 404, body: { error: { message: 'model "qwen2.5:7b" not found' } } },
    );

    const limited = await failureOf(runCallModel(resolveModel, cycleRequest));
    const missing = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(limited).toMatchObject({ type: 'ModelError.RateLimit', nonRetryable: false, nextRetryDelay: 2000 });
    expect(limited.message).toContain('slow down');
    expect(missing).toMatchObject({ type: 'ModelError.NotFound', nonRetryable: true });
  });

  it('tells how to switch to constrained decoding or the text protocol when a server refuses tools', async () => {
    stub.reply({ status: 400, body: { error: { message: 'this model does not support tools' } } });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure).toMatchObject({ type: 'ModelError.BadRequest', nonRetryable: true });
    expect(failure.message).toContain(`openai:${MODEL}@${stub.url}/v1#json (or #text)`);
  });

  it('refuses a reply with neither text nor tool calls as a non-retryable BadResponse', async () => {
    stub.reply({ body: completion({ content: null }) });

    const failure = await failureOf(runCallModel(resolveModel, cycleRequest));

    expect(failure).toMatchObject({ type: 'ModelError.BadResponse', nonRetryable: true });
  });
});

describe('a cycle on an OpenAI-compatible server with native tool calls', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

  it('runs the calls it is given, and Temporal retries a 429 after its retry-after', async () => {
    stub.reply(
      { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } },
      { body: completion({ tool_calls: [{ name: 'echo', arguments: '{"message":"native"}' }] }) },
      { body: completion({ tool_calls: [{ name: 'done', arguments: '{"summary":"echoed natively"}' }] }) },
    );
    const { worker, taskQueue } = await providerWorker(env, bundle, resolveModel, 'test-openai-tools');
    const agentId = `openai-tools-${Date.now()}`;
    const input: CycleInput = { agentId, before: enqueueTasks(defaultScratchpad('Native'), ['Echo natively']) };

    const result: CycleResult = await worker.runUntil(
      startAgentCycle(env, taskQueue, input).then((handle) => handle.result()),
    );

    expect(result.outcome).toBe('completed');
    expect(result.after.notes).toContain('[TOOL] echo({"message":"native"}) → ECHO: native');
    expect(result.after.completed_tasks).toEqual([{ task: 'Echo natively', summary: 'echoed natively' }]);
    expect(stub.received).toHaveLength(3);
    expect(result.usage.inputTokens).toBe(2000);
  });

  it('sends a chat turn\'s tool results back as role "tool" messages, after Temporal retried a 429', async () => {
    const calls = [
      { id: 'call_echo_7', name: 'echo', arguments: '{"message":"native"}' },
      { id: 'call_note_8', name: 'update_scratchpad', arguments: '{"trajectory_now":"Echoed"}' },
    ];
    stub.reply(
      { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } },
      {
        body: completion(
          { content: 'Echoing first.', tool_calls: calls },
          { prompt_tokens: 1000, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 600 } },
        ),
      },
      {
        body: completion(
          { content: 'The echo said ECHO: native.' },
          { prompt_tokens: 1500, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 1000 } },
        ),
      },
    );
    const { worker, taskQueue } = await providerWorker(env, bundle, resolveModel, 'test-openai-chat');
    const agentId = `openai-chat-${Date.now()}`;
    const input: CycleInput = {
      agentId,
      before: defaultScratchpad('Native chat'),
      kind: 'chat',
      message: 'Echo "native" for me',
      twoPhase: false,
    };

    const { result, trace, history } = await worker.runUntil(async () => {
      const handle = await startAgentCycle(env, taskQueue, input);
      const done: CycleResult = await handle.result();
      return { result: done, trace: await handle.query(traceQuery), history: await handle.fetchHistory() };
    });

    expect(result.outcome).toBe('completed');
    expect(result.reply).toBe('The echo said ECHO: native.');
    expect(result.after.trajectory.now).toBe('Echoed');
    // The 429 and its retry: the same request twice, the second attempt of the same activity, then the turn's next.
    expect(stub.received).toHaveLength(3);
    const [limited, retried, second] = stub.received.map((request) => request.body as SentBody);
    expect(retried).toEqual(limited);
    const started = (history.events ?? []).flatMap((event) => event.activityTaskStartedEventAttributes ?? []);
    expect(started[0]?.attempt).toBe(2);
    expect(started[0]?.lastFailure?.applicationFailureInfo?.type).toBe('ModelError.RateLimit');
    // The second call of the turn: the model's own calls, then one result per call with its id.
    expect(second?.messages.slice(-3)).toEqual([
      {
        role: 'assistant',
        content: 'Echoing first.',
        tool_calls: calls.map(({ id, name, arguments: args }) => ({
          id,
          type: 'function',
          function: { name, arguments: args },
        })),
      },
      { role: 'tool', tool_call_id: 'call_echo_7', content: 'ECHO: native' },
      { role: 'tool', tool_call_id: 'call_note_8', content: 'applied' },
    ]);
    expect(JSON.stringify(second?.messages)).not.toContain('tool_results_this_turn');
    // Every offered tool with its schema, on every request of the turn.
    const offered = trace[0]?.request.tools ?? [];
    expect(offered).toEqual(expect.arrayContaining(['echo', 'update_scratchpad']));
    const schemas = offeredTools(offered).map(({ name, description, inputSchema }) => ({
      type: 'function',
      function: { name, description, parameters: inputSchema },
    }));
    expect(retried?.tools).toEqual(schemas);
    expect(second?.tools).toEqual(schemas);
    // Cached prompt tokens are counted apart, as cache reads, across the turn.
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 60, cacheReadTokens: 1600, cacheWriteTokens: 0 });
  });
});
