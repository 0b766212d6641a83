import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { Agents } from '../../src/clients/agents';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { approvalsQuery, decideUpdate } from '../../src/common/messages/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { shutdownTelemetry, startTelemetry } from '../../src/telemetry';
import { workerSinks } from '../../src/workers/create-worker';
import { testEnvironment, uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { workflowBundle } from '../helpers/workflow-bundle';
import { type Jaeger, type StoredSpan, startJaeger } from '../../src/dev-server/jaeger';
import { tracedBundle, tracedClient, tracedWorker } from './traced-worker';

jest.setTimeout(180_000);

let jaeger: Jaeger;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
const service = uniqueId('scratchpad-genai');
const SECRET = 'PLUM-7731';

beforeAll(async () => {
  jaeger = await startJaeger();
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    OTEL_SERVICE_NAME: service,
    OTEL_METRIC_EXPORT_INTERVAL: '500',
  });
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
  expect(startTelemetry()).toBeDefined();
  env = await testEnvironment();
  bundle = await tracedBundle();
});

afterAll(async () => {
  await shutdownTelemetry();
  await env?.teardown();
  await jaeger?.stop();
});

/** Sends what is buffered, then waits until Jaeger holds spans that `enough` accepts. */
async function storedSpans(enough: (spans: StoredSpan[]) => boolean): Promise<StoredSpan[]> {
  await startTelemetry()?.spanProcessor.forceFlush();
  return waitFor(() => jaeger.spans(service), enough, { timeoutMs: 30_000, what: 'the spans in jaeger' });
}

function ofAgent(spans: StoredSpan[], agentId: string): StoredSpan[] {
  return spans.filter(
    (span) => span.tags['gen_ai.agent.id'] === agentId || span.tags['gen_ai.memory.store.id'] === agentId,
  );
}

/** The span's ancestors' names, nearest first. */
function ancestry(span: StoredSpan, spans: StoredSpan[]): string[] {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  const names: string[] = [];
  for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) {
    names.push(parent.name);
  }
  return names;
}

describe('traces and metrics in the GenAI conventions, read back from Jaeger', () => {
  it('a chat turn with a tool call: one trace from the client call to the activities, with the GenAI spans', async () => {
    const taskQueue = uniqueTaskQueue('telemetry-chat');
    const agentId = uniqueId('traced');
    const { worker } = await tracedWorker(env, bundle, taskQueue, [
      { tool: 'echo', args: { message: `the secret is ${SECRET}` } },
      { text: `Your secret is safe: ${SECRET}.` },
      { tool: 'update_scratchpad', args: { identity_user: `Ada, whose secret is ${SECRET}` } },
    ]);
    const agents = new Agents(tracedClient(env));
    await worker.runUntil(async () => {
      const answer = await agents.send({ agentId, taskQueue }, { message: `Remember ${SECRET}, please.` });
      expect(answer.reply).toContain(SECRET);
      // A malformed directive, which the agent drops (and counts).
      await agents.client.workflow.getHandle(agentWorkflowId(agentId)).signal('directive', 42);
      await agents.waitForCycle({ agentId }, answer.cycleId);
      await agents.client.workflow.getHandle(agentWorkflowId(agentId)).terminate();
    });

    const spans = await storedSpans((found) => ofAgent(found, agentId).some((span) => span.name === 'update_memory'));
    const mine = ofAgent(spans, agentId);
    const cycle = mine.find((span) => span.name === `invoke_agent ${agentId}`);
    expect(cycle?.tags).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agentId,
      'gen_ai.conversation.id': agentId,
      'durable_scratchpad.cycle.id': cycleWorkflowId(agentId, 1),
      'durable_scratchpad.cycle.kind': 'chat',
      'durable_scratchpad.cycle.outcome': 'completed',
    });

    const chats = mine.filter((span) => span.name === 'chat test');
    expect(chats.map((span) => span.tags['durable_scratchpad.phase'])).toEqual(
      expect.arrayContaining(['respond', 'respond', 'reflect']),
    );
    for (const chat of chats) {
      expect(chat.tags).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'test',
        'span.kind': 'client',
      });
      for (const key of [
        'gen_ai.usage.input_tokens',
        'gen_ai.usage.output_tokens',
        'gen_ai.usage.cache_read.input_tokens',
        'gen_ai.usage.cache_creation.input_tokens',
      ]) {
        expect(typeof chat.tags[key]).toBe('number');
      }
      expect(chat.tags['gen_ai.response.model']).toBeDefined();
      expect(ancestry(chat, spans)).toEqual(
        expect.arrayContaining(['RunActivity:callModel', `invoke_agent ${agentId}`]),
      );
    }

    const tool = mine.find((span) => span.name === 'execute_tool echo');
    expect(tool?.tags).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'durable_scratchpad.tool.source': 'builtin',
      'durable_scratchpad.tool.approval': 'auto',
    });
    expect(String(tool?.tags['gen_ai.tool.call.id'])).toContain(cycleWorkflowId(agentId, 1));

    const memory = mine.find((span) => span.name === 'update_memory');
    expect(memory?.tags).toMatchObject({
      'gen_ai.operation.name': 'update_memory',
      'gen_ai.memory.store.id': agentId,
      'gen_ai.memory.archived_chars': 0,
    });
    expect(String(memory?.tags['gen_ai.memory.sections'])).toContain('identity_user');
    expect(Number(memory?.tags['gen_ai.memory.chars_added'])).toBeGreaterThan(0);
    expect(ancestry(memory!, spans)).toContain(`invoke_agent ${agentId}`);

    // One trace: the client's update, the agent's handling of it, the cycle and its activities.
    const trace = spans.filter((span) => span.traceId === cycle?.traceId).map((span) => span.name);
    expect(trace).toEqual(
      expect.arrayContaining([
        'UpdateWithStartWorkflow:send',
        'HandleUpdate:send',
        'RunWorkflow:agentCycle',
        `invoke_agent ${agentId}`,
        'RunActivity:callModel',
        'execute_tool echo',
        'update_memory',
      ]),
    );
    expect(new Set(mine.map((span) => span.traceId))).toEqual(new Set([cycle?.traceId]));

    // No message text without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: not the user's, the
    // model's, the tool's or the memory's.
    expect(JSON.stringify(spans)).not.toContain(SECRET);

    // Recorded with telemetry on, both histories replay on a worker without it: telemetry can be turned off.
    for (const workflowId of [agentWorkflowId(agentId), cycleWorkflowId(agentId, 1)]) {
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      await Worker.runReplayHistory(
        { workflowBundle: await workflowBundle(), sinks: workerSinks() },
        history,
        workflowId,
      );
    }
  });

  it('a rejected update is an update_memory span in error, with the reason', async () => {
    const taskQueue = uniqueTaskQueue('telemetry-rejected');
    const agentId = uniqueId('rejected');
    const { worker } = await tracedWorker(env, bundle, taskQueue, [
      { tool: 'update_scratchpad', args: { no_such_section: 'x' } },
      { tool: 'done', args: { summary: 'gave up' } },
    ]);
    const client = tracedClient(env);
    const before = { ...defaultScratchpad('Tidy up'), current_task: 'note something' };
    const result = await worker.runUntil(() =>
      client.workflow.execute('agentCycle', {
        taskQueue,
        workflowId: cycleWorkflowId(agentId, 1),
        args: [{ agentId, before }],
      }),
    );
    expect((result as CycleResult).after.notes).toContain('[UPDATE REJECTED]');
    const spans = await storedSpans((found) => ofAgent(found, agentId).some((span) => span.name === 'update_memory'));
    const memory = ofAgent(spans, agentId).find((span) => span.name === 'update_memory');
    expect(memory?.tags).toMatchObject({ 'error.type': 'rejected', 'otel.status_code': 'ERROR' });
    expect(String(memory?.tags['gen_ai.memory.rejected_reason'])).toContain('no_such_section');
  });

  it('sends the GenAI histograms and the memory metrics over OTLP', async () => {
    const names = [
      'gen_ai_client_token_usage_bucket',
      'gen_ai_client_operation_duration_bucket',
      'durable_scratchpad_cycles',
      'durable_scratchpad_memory_size',
      'durable_scratchpad_memory_churn_bucket',
      'durable_scratchpad_memory_turns_since_change',
      'durable_scratchpad_directives_dropped',
    ];
    const text = await waitFor(
      () => jaeger.metrics(),
      (body) => names.every((name) => body.includes(name)),
      { timeoutMs: 30_000, what: 'the metrics in the collector' },
    );
    expect(text).toMatch(/gen_ai_client_token_usage_count\{[^}]*gen_ai_token_type="input"[^}]*\} [1-9]/);
    expect(text).toMatch(/gen_ai_client_token_usage_count\{[^}]*gen_ai_token_type="output"/);
    expect(text).toMatch(/durable_scratchpad_cycles\{[^}]*outcome="completed"[^}]*\} [1-9]/);
    expect(text).toMatch(/durable_scratchpad_memory_size\{[^}]*section="identity_user"/);
  });

  it('a worker restart that replays the cycle emits no workflow span twice', async () => {
    const taskQueue = uniqueTaskQueue('telemetry-replay');
    const agentId = uniqueId('replayed');
    // Answers by iteration, so the second worker answers as the first would have.
    const script = [
      { match: ['Iteration 1 of'], tool: 'update_scratchpad', args: { workspace: 'Echoing once' } },
      { match: ['Iteration 2 of'], tool: 'echo', args: { message: 'once' } },
      { match: ['Iteration 3 of'], tool: 'done', args: { summary: 'echoed' } },
    ];
    const client = tracedClient(env);
    const agents = new Agents(client);
    const first = await tracedWorker(env, bundle, taskQueue, script, { approve: ['echo'] });
    const firstRun = first.worker.run();
    const handle = client.workflow.getHandle(agentWorkflowId(agentId));
    try {
      await agents.wake({ agentId, taskQueue }, { tasks: ['echo once'] });
      await waitFor(
        () => handle.query(approvalsQuery),
        (calls) => calls.length === 1,
      );
    } finally {
      first.worker.shutdown();
      await firstRun;
    }
    // No cache: every workflow task of the new worker replays the whole history first.
    const second = await tracedWorker(env, bundle, taskQueue, script, { maxCachedWorkflows: 0, approve: ['echo'] });
    await second.worker.runUntil(async () => {
      await handle.executeUpdate(decideUpdate, { args: [{ decision: 'approve', by: 'ada' }] });
      await client.workflow.getHandle(cycleWorkflowId(agentId, 1)).result();
      await agents.waitForCycle({ agentId }, cycleWorkflowId(agentId, 1));
      await handle.terminate();
    });

    const spans = await storedSpans((found) => ofAgent(found, agentId).some((span) => span.name.startsWith('invoke')));
    const count = (name: string) => spans.filter((span) => span.name === name && span.traceId === cycleTrace()).length;
    const cycleTrace = () => spans.find((span) => span.name === `invoke_agent ${agentId}`)?.traceId;
    expect(ofAgent(spans, agentId).filter((span) => span.name === `invoke_agent ${agentId}`)).toHaveLength(1);
    expect(count('update_memory')).toBe(1);
    expect(count('RunWorkflow:agentCycle')).toBe(1);
    expect(count('chat test')).toBe(3);
    expect(count('execute_tool echo')).toBe(1);
    const cycle = spans.find((span) => span.name === `invoke_agent ${agentId}`);
    expect(cycle?.events.map((event) => event.fields['durable_scratchpad.approval.decision'])).toEqual(['approve']);
    const tool = spans.find((span) => span.name === 'execute_tool echo' && span.traceId === cycle?.traceId);
    expect(tool?.tags['durable_scratchpad.tool.approval']).toBe('ask');
    // The wait itself: one span from the request (first worker) to the decision (second worker).
    const waits = spans.filter((span) => span.name === 'await_approval echo' && span.traceId === cycle?.traceId);
    expect(waits.map((span) => span.tags['durable_scratchpad.approval.decision'])).toEqual(['approve']);
    expect(waits[0]?.tags['durable_scratchpad.approval.call_id']).toBe('2.1');
    // Waiting, then decided: the gauge is back to zero.
    await waitFor(
      () => jaeger.metrics(),
      (body) => /durable_scratchpad_approvals_waiting\{[^}]*\} 0/.test(body),
      { timeoutMs: 30_000, what: 'the approvals gauge back at zero' },
    );
  });
});
