import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import type { ObservationStore } from '../../src/activities/observations/entry';
import { ScratchpadPlugin } from '../../src/workers/plugin';
import { agentIdKey } from '../../src/common/search-attributes';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { traceQuery } from '../../src/common/messages/cycle';
import { importUpdate, runCycleUpdate, statusQuery } from '../../src/common/messages/agent';
import { updateAgent } from '../../src/clients/agents';
import type { CycleResult } from '../../src/core/cycle/input';
import { type Scratchpad, defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { archivePointer } from '../../src/core/scratchpad/budget';
import { sandboxOptions, scriptedWorker, useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';
import { testServerAddress, uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

// The plugin's default store lives in the data directory: point it at a fresh one, as a user's SCRATCHPAD_HOME.
const saved = { home: process.env.SCRATCHPAD_HOME, observations: process.env.SCRATCHPAD_OBSERVATIONS };
let home: string;
beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-home-'));
  process.env.SCRATCHPAD_HOME = home;
  delete process.env.SCRATCHPAD_OBSERVATIONS;
});
afterAll(() => {
  for (const [name, value] of [
    ['SCRATCHPAD_HOME', saved.home],
    ['SCRATCHPAD_OBSERVATIONS', saved.observations],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const newAgentId = () => uniqueId('archive');

const connections: NativeConnection[] = [];
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
});

/**
 * A worker the way a user embeds the plugin: default store options, only the model scripted. Each has a connection
 * and an identity of its own, as a worker process on this host would (the SDK refuses two workers of one queue on one
 * connection, and names a worker by its process id).
 */
async function pluginWorker(taskQueue: string, script: ScriptEntry[], observations?: ObservationStore) {
  const model = new ScriptedProvider(script, 'archive');
  const connection = await NativeConnection.connect({ address: testServerAddress() });
  connections.push(connection);
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    identity: `${uniqueId('worker')}@${os.hostname()}`,
    workflowBundle: bundle,
    plugins: [
      new ScratchpadPlugin({
        model: 'scripted:archive',
        providers: { 'scripted:archive': model },
        toolLimits: sandboxOptions(),
        ...(observations && { observations }),
      }),
    ],
  });
  return { worker, model };
}

/** An update that outgrows the cycles' small budget, so the oldest lines of the draft go to the archive. */
const drafting = (label: string): ScriptEntry => ({
  tool: 'update_scratchpad',
  args: {
    workspace: Array.from({ length: 40 }, (_, index) => `${label} line ${index}: ${'detail '.repeat(8)}`).join('\n'),
  },
});
const done: ScriptEntry = { tool: 'done', args: { summary: 'done' } };
const reading = (id: string): ScriptEntry => ({ tool: 'scratchpad_read', args: { scratchpad_id: id } });

function runCycle(taskQueue: string, agentId: string, n: number, before: Scratchpad, task: string) {
  return env.client.workflow.execute('agentCycle', {
    taskQueue,
    workflowId: cycleWorkflowId(agentId, n),
    args: [{ agentId, before: enqueueTasks(before, [task]), budgetChars: 1500 }],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  }) as Promise<CycleResult>;
}

/** The archive a cycle wrote: its id and the pointer left in WORKSPACE. */
function archiveOf(result: CycleResult): string {
  expect(result.outcome).toBe('completed');
  const archive = result.archived?.find((entry) => entry.section === 'workspace');
  expect(archive).toBeDefined();
  expect(result.after.workspace).toContain(`scratchpad_id="${archive!.id}"`);
  return archive!.id;
}

/** Whether the model was shown the oldest, archived line of `label`'s draft in its `index`th request. */
function sawArchived(model: ScriptedProvider, index: number, label: string): boolean {
  return JSON.stringify(model.requests[index]?.messages).includes(`${label} line 0: detail`);
}

/** The identity of the worker that ran each activity of a cycle, by activity type. */
async function activityWorkers(workflowId: string): Promise<Record<string, string>> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const types = new Map<string, string>();
  const workers: Record<string, string> = {};
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '');
    const started = event.activityTaskStartedEventAttributes;
    if (started) workers[types.get(String(started.scheduledEventId)) ?? ''] = started.identity ?? '';
  }
  return workers;
}

/** Resolves once `worker` polls (the server lists it among the task queue's pollers). */
async function polling(worker: Worker): Promise<void> {
  await waitFor(
    async () => {
      const response = await env.client.workflowService.describeTaskQueue({
        namespace: env.namespace ?? 'default',
        taskQueue: { name: worker.options.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      return response.pollers?.some((poller) => poller.identity === worker.options.identity);
    },
    { timeoutMs: 10_000, what: `worker ${worker.options.identity} to poll` },
  );
}

describe('the memory archive with the plugin and default options', () => {
  it('survives a worker restart: the next cycle reads what the first archived', async () => {
    const taskQueue = uniqueTaskQueue('archive-restart');
    const agentId = newAgentId();
    const first = await pluginWorker(taskQueue, [drafting('first'), done]);
    const cycle1 = await first.worker.runUntil(
      runCycle(taskQueue, agentId, 1, defaultScratchpad('Archivist'), 'Draft'),
    );
    const id = archiveOf(cycle1);
    expect(fs.existsSync(path.join(home, 'observations.db'))).toBe(true);

    // A new process would build a new plugin: nothing of the first worker's memory is left but the store's file.
    const second = await pluginWorker(taskQueue, [reading(id), done]);
    const cycle2 = await second.worker.runUntil(runCycle(taskQueue, agentId, 2, cycle1.after, 'Recall the draft'));
    expect(cycle2.outcome).toBe('completed');
    expect(cycle2.missingArchives).toBeUndefined();
    expect(sawArchived(second.model, 1, 'first')).toBe(true);

    // The same restart with a store in process memory loses the archive, and the cycle says so.
    const forgetful = await pluginWorker(taskQueue, [reading(id), done], new MemoryObservationStore());
    const cycle3 = await forgetful.worker.runUntil(async () => {
      const result = await runCycle(taskQueue, agentId, 3, cycle1.after, 'Recall the draft again');
      const trace = await env.client.workflow.getHandle(cycleWorkflowId(agentId, 3)).query(traceQuery);
      expect(trace.find((entry) => entry.action?.tool === 'scratchpad_read')?.observation).toContain(
        `no scratchpad entry ${id}`,
      );
      return result;
    });
    expect(sawArchived(forgetful.model, 1, 'first')).toBe(false);
    expect(cycle3.missingArchives).toEqual([id]);
    expect(cycle3.after.notes).toContain(`[ARCHIVE] missing from the observation store: ${id};`);
  });

  it('is shared by two workers on one task queue, each reading what the other archived', async () => {
    const taskQueue = uniqueTaskQueue('archive-shared');
    const agentId = newAgentId();
    // Each cycle runs while one worker polls; the workers overlap between cycles, as in a rolling deploy.
    const a = await pluginWorker(taskQueue, [drafting('a'), done]);
    const runningA = a.worker.run();
    const cycle1 = await runCycle(taskQueue, agentId, 1, defaultScratchpad('Archivist'), 'Draft');
    const fromA = archiveOf(cycle1);

    const b = await pluginWorker(taskQueue, [reading(fromA), drafting('b'), done]);
    const runningB = b.worker.run();
    await polling(b.worker);
    a.worker.shutdown();
    await runningA;
    const cycle2 = await runCycle(taskQueue, agentId, 2, cycle1.after, 'Recall, then draft more');
    expect(cycle2.missingArchives).toBeUndefined();
    expect(sawArchived(b.model, 1, 'a')).toBe(true);
    const fromB = archiveOf(cycle2);

    const c = await pluginWorker(taskQueue, [reading(fromB), done]);
    const runningC = c.worker.run();
    await polling(c.worker);
    b.worker.shutdown();
    await runningB;
    const cycle3 = await runCycle(taskQueue, agentId, 3, cycle2.after, 'Recall what the other worker drafted');
    c.worker.shutdown();
    await runningC;
    expect(cycle3.missingArchives).toBeUndefined();
    expect(sawArchived(c.model, 1, 'b')).toBe(true);

    // The histories show who wrote and who read.
    expect((await activityWorkers(cycleWorkflowId(agentId, 1))).archiveContent).toBe(a.worker.options.identity);
    const second = await activityWorkers(cycleWorkflowId(agentId, 2));
    expect(second.runTool).toBe(b.worker.options.identity);
    expect(second.archiveContent).toBe(b.worker.options.identity);
    expect((await activityWorkers(cycleWorkflowId(agentId, 3))).runTool).toBe(c.worker.options.identity);
  });
});

describe('a missing archive', () => {
  it("is in the cycle's result and the agent's status, naming the entry", async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [reading('deadbeefdeadbeef'), done]);
    const agentId = newAgentId();
    const target = { agentId, taskQueue };
    const memory = { ...defaultScratchpad('Archivist'), workspace: `${archivePointer('deadbeefdeadbeef', 900)}\nnow` };
    await worker.runUntil(async () => {
      await updateAgent(env.client, target, importUpdate, [memory]);
      const record = await updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['Look back'] }]);
      const result: CycleResult = await env.client.workflow.getHandle(record.cycleId).result();
      expect(result.missingArchives).toEqual(['deadbeefdeadbeef']);
      const status = await env.client.workflow.getHandle(agentWorkflowId(agentId)).query(statusQuery);
      expect(status.missingArchives).toEqual(['deadbeefdeadbeef']);
    });
  });
});

/** Runs all `workers` until `work` is done. */
function runningAll<T>(workers: readonly Worker[], work: () => Promise<T>): Promise<T> {
  return workers.reduce<() => Promise<T>>((inner, worker) => () => worker.runUntil(inner()), work)();
}

describe('a worker whose store other workers cannot read', () => {
  it('says so at start when other workers poll its queue; workers of one host sharing the SQLite file do not', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const storeLines = (taskQueue: string) =>
      warn.mock.calls
        .map(([line]) => String(line))
        .filter((line) => line.startsWith('observation store:') && line.includes(taskQueue));
    try {
      const inMemory = uniqueTaskQueue('archive-memory');
      const onDisk = uniqueTaskQueue('archive-disk');
      const memoryWorkers = [
        await pluginWorker(inMemory, [], new MemoryObservationStore()),
        await pluginWorker(inMemory, [], new MemoryObservationStore()),
      ].map(({ worker }) => worker);
      const diskWorkers = [await pluginWorker(onDisk, []), await pluginWorker(onDisk, [])].map(({ worker }) => worker);
      await runningAll([...memoryWorkers, ...diskWorkers], async () => {
        await waitFor(() => storeLines(inMemory).length >= 2, { timeoutMs: 15_000 });
        // The disk workers started with the memory ones: their check has had as long to speak. Time passing is the
        // point: a check that says nothing has no event to wait for.
        await new Promise((resolve) => setTimeout(resolve, 1000));
      });
      const [first, second] = memoryWorkers.map((worker) => worker.options.identity);
      const lines = storeLines(inMemory);
      expect(lines).toHaveLength(2);
      for (const line of lines) expect(line).toContain('in process memory, which 1 other worker(s)');
      // Each names the other.
      expect(lines.some((line) => line.includes(`(${first})`))).toBe(true);
      expect(lines.some((line) => line.includes(`(${second})`))).toBe(true);
      expect(storeLines(onDisk)).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
