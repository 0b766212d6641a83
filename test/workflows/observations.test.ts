import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { ModelProvider, ProviderRequest } from '../../src/activities/model/provider';
import { createModelResolver } from '../../src/activities/model/registry';
import { type ScriptEntry, ScriptedProvider, type ScriptedRequest } from '../../src/activities/model/scripted';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import type { ModelResponse } from '../../src/core/cycle/model';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { SqliteObservationStore } from '../../src/activities/observations/sqlite-store';
import { agentIdKey } from '../../src/common/search-attributes';
import { workerSinks } from '../../src/workers/create-worker';
import { testEnvironment, uniqueTaskQueue } from '../helpers/temporal';
import { bundleWorkflows, sandboxOptions, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

/** A scripted model whose next reply may depend on the request it gets (an id seen in the prompt). */
class ReactiveModel implements ModelProvider {
  readonly spec = 'scripted:reactive';
  readonly requests: ScriptedRequest[] = [];

  constructor(private readonly steps: ((request: ProviderRequest) => ScriptEntry)[]) {}

  async complete(request: ProviderRequest): Promise<ModelResponse> {
    this.requests.push(structuredClone({ ...request, tools: request.tools.map((tool) => tool.name) }));
    const step = this.steps[this.requests.length - 1];
    if (!step) throw new Error(`reactive model ran out of steps at request ${this.requests.length}`);
    return new ScriptedProvider([step(request)], 'reactive').complete(request);
  }
}

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let directory: string;
let store: SqliteObservationStore;
let clockOffset = 0;

beforeAll(async () => {
  env = await testEnvironment();
  bundle = await bundleWorkflows();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'observations-workflow-'));
  store = new SqliteObservationStore(path.join(directory, 'observations.db'), { now: () => Date.now() + clockOffset });
});

afterAll(async () => {
  await store?.close();
  await env?.teardown();
  fs.rmSync(directory, { recursive: true, force: true });
});

async function observedWorker(
  steps: ScriptEntry[] | ((request: ProviderRequest) => ScriptEntry)[],
  toolOverrides: Partial<ToolOptions> = {},
): Promise<{ worker: Worker; queue: string; model: ReactiveModel; tools: ToolOptions }> {
  const model = new ReactiveModel(steps.map((step) => (typeof step === 'function' ? step : () => step)));
  const tools = { ...sandboxOptions(), ...toolOverrides };
  const queue = uniqueTaskQueue('test-observations');
  const resolveModel = createModelResolver({ defaultSpec: model.spec, providers: { [model.spec]: model } });
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: queue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools, observations: store }),
    sinks: workerSinks(),
  });
  return { worker, queue, model, tools };
}

let agentCounter = 0;
async function runCycle(queue: string, task: string): Promise<{ result: CycleResult; workflowId: string }> {
  const agentId = `observations-${process.pid}-${Date.now()}-${agentCounter++}`;
  const workflowId = `agent/${agentId}/cycle/1`;
  const input: CycleInput = { agentId, before: enqueueTasks(defaultScratchpad('Observation tests'), [task]) };
  const result = await env.client.workflow.execute('agentCycle', {
    taskQueue: queue,
    workflowId,
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
  return { result: result as CycleResult, workflowId };
}

function prompt(request: Pick<ProviderRequest, 'messages'> | undefined): string {
  return request?.messages.map((message) => message.content).join('\n') ?? '';
}

function scratchpadIdIn(request: ProviderRequest): string {
  const match = /\\?"scratchpad_id\\?":\\?"([0-9a-f]{16})/.exec(prompt(request));
  if (!match) throw new Error('no scratchpad_id in the prompt');
  return match[1] as string;
}

const encodedSize = (event: temporal.api.history.v1.IHistoryEvent) =>
  temporal.api.history.v1.HistoryEvent.encode(event).finish().length;

describe('large observations on the dev server (seed 002)', () => {
  it('a 10 MB tool result completes the cycle and adds under 4 KB of history for that step', async () => {
    const { worker, queue, tools } = await observedWorker([
      { tool: 'fs_read', args: { path: 'ten.bin.txt' } },
      { tool: 'done', args: { summary: 'read it' } },
    ]);
    fs.writeFileSync(
      path.join(tools.sandboxRoot, 'ten.bin.txt'),
      'INFO 10 MB of log\n'.repeat(555_556).slice(0, 10_000_000),
    );
    const { result, workflowId } = await worker.runUntil(runCycle(queue, 'Read the big file'));
    expect(result.outcome).toBe('completed');

    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.find(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    const scheduledId = Number(scheduled?.eventId);
    const step = events.filter(
      (event) =>
        event === scheduled ||
        Number(event.activityTaskStartedEventAttributes?.scheduledEventId) === scheduledId ||
        Number(event.activityTaskCompletedEventAttributes?.scheduledEventId) === scheduledId,
    );
    expect(step).toHaveLength(3);
    const stepBytes = step.reduce((sum, event) => sum + encodedSize(event), 0);
    expect(stepBytes).toBeLessThan(4096);
    const totalBytes = events.reduce((sum, event) => sum + encodedSize(event), 0);
    expect(totalBytes).toBeLessThan(64 * 1024);
    expect(result.after.notes).toMatch(
      /\[TOOL\] fs_read\(\{"path":"ten.bin.txt"\}\) → \{"scratchpad_id":"[0-9a-f]{16}","size_bytes":10000000/,
    );
  });

  it('seed 002 example 1: an 800 KB log, tail read via scratchpad_read, the error reported', async () => {
    const lines = Array.from({ length: 18_500 }, (_, index) => `INFO 2026-04-26 10:00:01 event number ${index}`);
    lines.splice(-20, 0, 'ERROR 2026-04-26 23:58:00 DISK_ALMOST_FULL');
    const log = `${lines.join('\n')}\nERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT\n`;
    expect(log.length).toBeGreaterThan(800_000);
    const { worker, queue, model, tools } = await observedWorker([
      () => ({ tool: 'fs_read', args: { path: 'big_log.txt' } }),
      (request) => ({ tool: 'scratchpad_read', args: { scratchpad_id: scratchpadIdIn(request), mode: 'tail' } }),
      (request) => ({
        tool: 'done',
        args: {
          summary: `Errors: ${[...new Set(prompt(request).match(/ERROR [^"\\\n]+/g))].sort().join('; ')}`,
        },
      }),
    ]);
    fs.writeFileSync(path.join(tools.sandboxRoot, 'big_log.txt'), log);
    const { result } = await worker.runUntil(runCycle(queue, 'Read big_log.txt and tell me the errors'));

    expect(result.outcome).toBe('completed');
    const [first, second, third] = model.requests;
    expect(first?.tools).not.toContain('scratchpad_read');
    expect(second?.tools).toContain('scratchpad_read');
    expect(third?.tools).toContain('scratchpad_read');
    // The summary shows the last 500 characters; the earlier error is only reachable by reading.
    expect(prompt(second)).toContain('LAST_CRITICAL_EVENT');
    expect(prompt(second)).not.toContain('DISK_ALMOST_FULL');
    // A read's note is its fields, then the slice as it is, on the lines after.
    const readNote = prompt(third).slice(prompt(third).indexOf('\n[TOOL] scratchpad_read('));
    expect(readNote).toContain('ERROR 2026-04-26 23:58:00 DISK_ALMOST_FULL');
    expect(readNote).toContain('ERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT');
    expect(result.after.completed_tasks.at(-1)).toEqual({
      task: 'Read big_log.txt and tell me the errors',
      summary: 'Errors: ERROR 2026-04-26 23:58:00 DISK_ALMOST_FULL; ERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT',
    });
  });

  it('seed 002 example 2: a 14 KB fetched body written with {{step1.content}} is byte-identical', async () => {
    const body = JSON.stringify({
      args: {},
      headers: Object.fromEntries(
        Array.from({ length: 440 }, (_, index) => [`X-Header-${index}`, `välue ${index} 😀`]),
      ),
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(14_000);
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/get`;
    try {
      // Loopback and its port are refused unless allowed explicitly.
      const { worker, queue, model, tools } = await observedWorker(
        [
          { tool: 'web_fetch', args: { url } },
          { tool: 'fs_write', args: { path: 'out.txt', content: '{{step1.content}}' } },
          { tool: 'done', args: { summary: 'saved' } },
        ],
        { fetchAllowAddresses: ['127.0.0.1/32'], fetchAllowPorts: [port] },
      );
      const { result } = await worker.runUntil(runCycle(queue, 'Download the URL and save it in out.txt'));
      expect(result.outcome).toBe('completed');
      expect(fs.readFileSync(path.join(tools.sandboxRoot, 'out.txt'))).toEqual(Buffer.from(body));
      expect(prompt(model.requests[1])).toContain('{{step1.content}}');
      expect(result.after.notes).toContain(
        `[TOOL] fs_write({"path":"out.txt","content":"{{step1.content}}"}) → {"result":"wrote ${Buffer.byteLength(body)} bytes`,
      );
    } finally {
      server.close();
    }
  });

  it('offers scratchpad_read only once the cycle has stored a large observation', async () => {
    const { worker, queue, model } = await observedWorker([
      { tool: 'echo', args: { message: 'small' } },
      { tool: 'done', args: { summary: 'nothing large' } },
    ]);
    const { result } = await worker.runUntil(runCycle(queue, 'Echo something small'));
    expect(result.outcome).toBe('completed');
    for (const request of model.requests) expect(request.tools).not.toContain('scratchpad_read');
  });

  it('deletes expired entries at the start of each cycle', async () => {
    clockOffset = -2 * 3600 * 1000;
    await store.put({ turnId: 'an-old-cycle', step: 1, kind: 'text', content: 'expired' });
    clockOffset = 0;
    const { worker, queue } = await observedWorker([{ tool: 'done', args: { summary: 'nothing to do' } }]);
    const { workflowId } = await worker.runUntil(runCycle(queue, 'Do nothing'));
    expect(await store.gc()).toBe(0);
    // GC runs as a local activity before anything else: its marker precedes the first scheduled activity.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const marker = events.findIndex(
      (event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    const firstActivity = events.findIndex((event) => event.activityTaskScheduledEventAttributes);
    expect(marker).toBeGreaterThan(0);
    expect(marker).toBeLessThan(firstActivity);
    expect(JSON.stringify(events[marker]?.markerRecordedEventAttributes?.details)).toBeDefined();
  });
});
