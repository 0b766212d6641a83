import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { cycleWorkflowId } from '../../src/common/ids';
import { type Jaeger, startJaeger } from '../../src/dev-server/jaeger';
import { connectClient } from '../../src/clients/connection';
import { telemetrySettings } from '../../src/telemetry';
import { ScratchpadPlugin } from '../../src/workers/plugin';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { testEnvironment, testServerAddress, uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { sandboxOptions, TEST_WORKER_THREAD } from '../helpers/worker';
import { tracedBundle } from './traced-worker';

jest.setTimeout(180_000);

let jaeger: Jaeger;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  jaeger = await startJaeger();
  env = await testEnvironment();
});

afterAll(async () => {
  await env?.teardown();
  await jaeger?.stop();
});

describe("a user's own OpenTelemetry setup, given to ScratchpadPlugin", () => {
  it('gets the GenAI spans of a cycle, workflow side and activity side, with no OTEL_* variables set', async () => {
    expect(telemetrySettings()).toBeUndefined();
    const service = uniqueId('own-provider');
    const resource = new Resource({ 'service.name': service });
    const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${jaeger.otlpEndpoint}/v1/traces` }));
    const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
    provider.register();
    const taskQueue = uniqueTaskQueue('own-provider');
    const agentId = uniqueId('own');
    const model = new ScriptedProvider([{ tool: 'done', args: { summary: 'nothing to do' } }], 'own');
    const worker = await Worker.create({
      ...TEST_WORKER_THREAD,
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await tracedBundle(),
      plugins: [
        new ScratchpadPlugin({
          model: 'scripted:own',
          providers: { 'scripted:own': model },
          toolLimits: sandboxOptions(),
          observations: new MemoryObservationStore(),
          telemetry: { spanProcessor, resource },
        }),
      ],
    });
    // The public client, under the application's own tracer provider.
    const client = await connectClient({
      temporal: { address: testServerAddress() },
      TEMPORAL_NAMESPACE: 'default',
      encryptionKeys: [],
      tracing: true,
    });
    const before = { ...defaultScratchpad('Tidy up'), current_task: 'check the sandbox' };
    await worker.runUntil(() =>
      client.workflow.execute('agentCycle', {
        taskQueue,
        workflowId: cycleWorkflowId(agentId, 1),
        args: [{ agentId, before }],
      }),
    );
    await provider.forceFlush();
    const spans = await waitFor(
      () => jaeger.spans(service),
      (found) => found.some((span) => span.name === `invoke_agent ${agentId}`),
      { timeoutMs: 30_000, what: "the cycle's spans in jaeger" },
    );
    const cycle = spans.find((span) => span.name === `invoke_agent ${agentId}`)!;
    const chat = spans.find((span) => span.name === 'chat own');
    expect(chat?.tags).toMatchObject({ 'gen_ai.provider.name': 'scripted', 'durable_scratchpad.phase': 'task' });
    expect(chat?.traceId).toBe(cycle.traceId);
    expect(spans.find((span) => span.name === 'StartWorkflow:agentCycle')?.traceId).toBe(cycle.traceId);
    await provider.shutdown();
    await client.connection.close();
  });
});
