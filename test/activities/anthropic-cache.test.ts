import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { OpenAICompatibleProvider } from '../../src/activities/model/openai';
import type { ProviderRequest } from '../../src/activities/model/provider';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { signalAgent, updateAgent } from '../../src/clients/agents';
import { configureUpdate, sendUpdate, wakeSignal } from '../../src/common/messages/agent';
import { buildReflectMessages, buildRespondMessages, turnExchange } from '../../src/core/cycle/chat-messages';
import { dispatchAction } from '../../src/core/cycle/dispatch';
import { type ModelRequest, ZERO_USAGE, contentText } from '../../src/core/cycle/model';
import { buildCyclePrompt, cyclePromptContent } from '../../src/core/cycle/prompts';
import { renderMarkdown } from '../../src/core/scratchpad/render';
import { type Scratchpad, defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { waitFor } from '../helpers/temporal';
import { providerWorker, useWorkflowEnvironment } from '../helpers/worker';
import { runCallModel } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';

const MODEL = 'claude-sonnet-4-6';

type Block = { type: string; text?: string; cache_control?: { type: string; ttl?: string } };
type Body = { system: Block[]; messages: { role: string; content: string | Block[] }[] };

function message(content: unknown[], stopReason = 'end_turn') {
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  return { id: 'msg_01', type: 'message', role: 'assistant', model: MODEL, content, stop_reason: stopReason, usage };
}
const text = (reply: string) => ({ body: message([{ type: 'text', text: reply }]) });
const tool = (name: string, input: object) => ({
  body: message([{ type: 'tool_use', id: `toolu_${name}`, name, input }], 'tool_use'),
});

const state: Scratchpad = {
  ...defaultScratchpad('Help with data pipelines'),
  understanding: {
    known: '- (user) the replica lags after failover\n- (user) batches doubled last week',
    believed: '- the batch size is to blame',
    unknown: '- the SLA',
  },
};
const STABLE_END = '### Unknown\n- the SLA\n\n---\n\n';

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

function sent(index = 0): Body {
  return stub.received[index]?.body as Body;
}

/** Every block of the request that carries a breakpoint, the system prompt's first. */
function breakpoints(body: Body): Block[] {
  const blocks = body.messages.flatMap((entry) => (typeof entry.content === 'string' ? [] : entry.content));
  return [...body.system, ...blocks].filter((block) => block.cache_control);
}

/** The first message's text up to and including its `n`th breakpoint (1-based). */
function upToBreakpoint(body: Body, n: number): string {
  const blocks = body.messages[0]?.content as Block[];
  const marked = blocks.flatMap((block, index) => (block.cache_control ? [index] : []));
  return blocks
    .slice(0, marked[n - 1]! + 1)
    .map((block) => block.text)
    .join('');
}

/** The body `request` went out with; a forced call that text does not make is asked again once, as it was sent. */
async function call(request: ModelRequest): Promise<Body> {
  const first = stub.received.length;
  const forced = request.tools.length > 0 && request.toolChoice !== undefined && request.toolChoice !== 'auto';
  stub.reply(text('ok'), ...(forced ? [text('ok')] : []));
  await runCallModel(resolveModel, request);
  expect(stub.received).toHaveLength(first + (forced ? 2 : 1));
  return sent(first);
}

describe('cache breakpoints where the rendering puts the stable sections', () => {
  it('respond: after the system prompt, at the end of Known and after UNDERSTANDING, and nowhere later', async () => {
    const body = await call({ system: 'respond', messages: buildRespondMessages(state, 'Hi'), tools: ['echo'] });

    expect(body.system[0]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(breakpoints(body)).toHaveLength(3);
    expect(upToBreakpoint(body, 1)).toMatch(/## IDENTITY[\s\S]*### Known\n[\s\S]*batches doubled last week\n$/);
    expect(upToBreakpoint(body, 2).endsWith(STABLE_END)).toBe(true);
    const rest = (body.messages[0]?.content as Block[]).slice(-1)[0]!;
    expect(rest.text?.startsWith('## TRAJECTORY')).toBe(true);
    expect(rest.cache_control).toBeUndefined();
    expect(body.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Understood.' },
      { role: 'user', content: 'Hi' },
    ]);
    // The model reads exactly the text it always did.
    expect((body.messages[0]?.content as Block[]).map((block) => block.text).join('')).toBe(
      contentText(buildRespondMessages(state, 'Hi')[0]!.content),
    );
  });

  it('a later turn that changed only TRAJECTORY sends the same bytes up to the stable breakpoint', async () => {
    const later = { ...state, trajectory: { ...state.trajectory, now: 'Comparing fixes' }, workspace: 'Two fixes' };
    const first = await call({ system: 'respond', messages: buildRespondMessages(state, 'Hi'), tools: ['echo'] });
    const second = await call({ system: 'respond', messages: buildRespondMessages(later, 'Go on'), tools: ['echo'] });

    const marked = (body: Body) => (body.messages[0]?.content as Block[]).filter((block) => block.cache_control);
    expect(upToBreakpoint(second, 2)).toBe(upToBreakpoint(first, 2));
    expect(marked(second)).toEqual(marked(first));
    expect(JSON.stringify(second.messages[0])).not.toBe(JSON.stringify(first.messages[0]));
  });

  it('reflect: the same breakpoints, the exchange after them', async () => {
    const body = await call({
      system: 'reflect',
      messages: buildReflectMessages(state, 'Hi', 'Hello'),
      tools: ['update_scratchpad'],
      toolChoice: { name: 'update_scratchpad' },
    });

    expect(breakpoints(body)).toHaveLength(3);
    expect(upToBreakpoint(body, 1).startsWith('<prior_understanding>\n## IDENTITY')).toBe(true);
    expect(upToBreakpoint(body, 2).endsWith(STABLE_END)).toBe(true);
    expect((body.messages[0]?.content as Block[]).at(-1)?.text).toMatch(
      /## TRAJECTORY[\s\S]*USER: Hi\nASSISTANT: Hello/,
    );
  });

  it('a task cycle: the stable sections, and everything before the notes its iterations add to', async () => {
    const prompt = buildCyclePrompt(state, { iteration: 1, maxIterations: 3 });
    const body = await call({
      system: 'cycle',
      messages: [{ role: 'user', content: cyclePromptContent(state, prompt) }],
      tools: ['echo', 'done'],
      toolChoice: 'any',
    });

    expect(breakpoints(body)).toHaveLength(4);
    expect(upToBreakpoint(body, 2).endsWith(STABLE_END)).toBe(true);
    expect(upToBreakpoint(body, 3).endsWith('## NOTES\n')).toBe(true);
    expect((body.messages[0]?.content as Block[]).at(-1)?.text).toMatch(
      /^\(none\)\n<\/scratchpad>\n\nIteration 1 of 3/,
    );
  });

  it('a respond iteration after tool calls is cached to its end; never more than four breakpoints', async () => {
    const offered = { work: ['echo'], update: false, done: false };
    const echo = { tool: 'echo', args: { message: 'hi' }, callId: 'toolu_1' };
    const handled = [{ step: dispatchAction(state, echo, offered), observation: { ok: true, result: 'ECHO: hi' } }];
    const messages = buildRespondMessages(state, 'Echo hi', [], [turnExchange(1, '', handled)]);

    const body = await call({ system: 'respond', messages, tools: ['echo'] });

    expect(breakpoints(body)).toHaveLength(4);
    const last = body.messages.at(-1)?.content as Block[];
    expect(last.at(-1)).toMatchObject({ type: 'tool_result', cache_control: { type: 'ephemeral' } });
    const crowded = [
      { role: 'user' as const, content: ['a', 'b', 'c', 'd', 'e'].map((t) => ({ text: t, cache: true as const })) },
    ];
    const limited = await call({ system: 'respond', messages: crowded, tools: [] });
    expect(breakpoints(limited)).toHaveLength(4);
    // The earliest marks go: a later breakpoint's prefix holds theirs.
    expect((limited.messages[0]?.content as Block[]).map((block) => Boolean(block.cache_control))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('asks for an hour on every breakpoint when the request says so', async () => {
    const body = await call({
      system: 'respond',
      messages: buildRespondMessages(state, 'Hi'),
      tools: [],
      cacheTtl: '1h',
    });

    expect(breakpoints(body).map((block) => block.cache_control)).toEqual(
      Array.from({ length: 3 }, () => ({ type: 'ephemeral', ttl: '1h' })),
    );
  });

  it('other providers get the blocks as the one text they always had', async () => {
    const messages = buildRespondMessages(state, 'Hi');
    const expected = `<current_understanding>\n${renderMarkdown(state).trimEnd()}\n</current_understanding>`;
    const openai = new OpenAICompatibleProvider({ model: 'local', baseURL: 'http://127.0.0.1:9/v1' });
    const scripted = new ScriptedProvider([{ text: 'ok' }]);

    const params = openai.params({ system: 'respond', messages, tools: [], toolChoice: 'auto', maxTokens: 10 });
    await scripted.complete({ system: 'respond', messages, tools: [], toolChoice: 'auto', maxTokens: 10 });

    expect(params.messages[1]).toEqual({ role: 'user', content: contentText(messages[0]!.content) });
    expect(String(params.messages[1]?.content).startsWith(expected)).toBe(true);
    expect(contentText(scripted.requests[0]!.messages[0]!.content).startsWith(expected)).toBe(true);
  });

  it("a provider of the user's own, through callModel, gets each message as one text, as before", async () => {
    const seen: unknown[] = [];
    const own = {
      spec: 'own:model',
      async complete(request: ProviderRequest) {
        seen.push(...request.messages.map((entry) => entry.content));
        return { text: 'ok', toolCalls: [], stopReason: 'end_turn', usage: ZERO_USAGE, model: 'own' };
      },
    };

    await runCallModel(() => own, { system: 'respond', messages: buildRespondMessages(state, 'Hi'), tools: [] });

    expect(seen).toEqual([expect.stringMatching(/^<current_understanding>\n## IDENTITY/), 'Understood.', 'Hi']);
  });
});

describe('the cache lifetime reaches the request', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

  /** Waits for the stub to have received `count` requests, and no more. */
  async function received(count: number): Promise<void> {
    await waitFor(() => stub.received.length >= count, { intervalMs: 50, what: `${count} requests at the stub` });
    expect(stub.received).toHaveLength(count);
  }

  const ttls = (body: Body) => breakpoints(body).map((block) => block.cache_control?.ttl ?? '5m');

  it("from the agent's setting, on respond and reflect alike; the default is the provider's", async () => {
    const { worker, taskQueue } = await providerWorker(env, bundle, resolveModel, 'test-cache-ttl');
    const agentId = `cache-ttl-${Date.now()}`;
    stub.reply(text('Hello.'), tool('update_scratchpad', {}), text('Again.'), tool('update_scratchpad', {}));

    await worker.runUntil(async () => {
      await updateAgent(env.client, { agentId, taskQueue }, sendUpdate, [{ message: 'Hi' }]);
      await received(2);
      await env.client.workflow
        .getHandle(`agent/${agentId}`)
        .executeUpdate(configureUpdate, { args: [{ cacheTtl: '1h' }] });
      await updateAgent(env.client, { agentId, taskQueue }, sendUpdate, [{ message: 'Hi again' }]);
      await received(4);
      await env.client.workflow.getHandle(`agent/${agentId}`).terminate();
    });

    expect([0, 1].flatMap((index) => ttls(sent(index)))).toEqual(Array.from({ length: 6 }, () => '5m'));
    expect([2, 3].flatMap((index) => ttls(sent(index)))).toEqual(Array.from({ length: 6 }, () => '1h'));
  });

  it('an hour for a cycle a schedule woke, unless the agent says otherwise', async () => {
    const { worker, taskQueue } = await providerWorker(env, bundle, resolveModel, 'test-cache-ttl-schedule');
    const agentId = `cache-ttl-schedule-${Date.now()}`;
    const target = { agentId, taskQueue };
    stub.reply(tool('done', { summary: 'checked' }), tool('done', { summary: 'checked again' }));

    await worker.runUntil(async () => {
      await signalAgent(env.client, target, wakeSignal, [{ tasks: ['Check the lag'], trigger: 'schedule' }]);
      await received(1);
      await env.client.workflow
        .getHandle(`agent/${agentId}`)
        .executeUpdate(configureUpdate, { args: [{ cacheTtl: '5m' }] });
      await signalAgent(env.client, target, wakeSignal, [{ tasks: ['Check it again'], trigger: 'schedule' }]);
      await received(2);
      await env.client.workflow.getHandle(`agent/${agentId}`).terminate();
    });

    expect(ttls(sent(0)).every((ttl) => ttl === '1h')).toBe(true);
    expect(ttls(sent(0)).length).toBeGreaterThanOrEqual(3);
    expect(ttls(sent(1)).every((ttl) => ttl === '5m')).toBe(true);
  });
});
