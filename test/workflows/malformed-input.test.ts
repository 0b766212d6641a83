import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { AgentError, CycleError, ResearchError, ScheduleError, StagedError } from '../../src/common/failure-types';
import { agentWorkflowId, researchWorkerId, researchWorkflowId } from '../../src/common/ids';
import { statusQuery as agentStatusQuery } from '../../src/common/messages/agent';
import { boardQuery, researchStatusQuery } from '../../src/common/messages/research';
import { workerSinks } from '../../src/workers/create-worker';
import { testServerAddress, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

const EventType = temporal.api.enums.v1.EventType;

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

/*
 * Starts, signals and updates come from a plain client by name, as the stock `temporal` CLI or another SDK sends
 * them. The worker runs workflows only: no activity ever runs, so a workflow that takes its input waits on its first
 * activity, still open for signals, and one that refuses its input has failed before reaching it.
 */
describe('malformed input from a plain client', () => {
  let client: Client;
  let connection: Connection;
  let worker: Worker;
  let running: Promise<void>;
  let taskQueue: string;

  // Inside a describe block, so the worker shuts down before the environment's connection closes.
  beforeAll(async () => {
    connection = await Connection.connect({ address: testServerAddress() });
    client = new Client({ connection });
    taskQueue = uniqueTaskQueue('test-malformed');
    worker = await Worker.create({
      ...TEST_WORKER_THREAD,
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      ...WORKER_LIVENESS_OPTIONS,
      workflowBundle: bundle,
      sinks: workerSinks(),
    });
    running = worker.run();
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
  });

  async function workflowTaskFailures(handle: WorkflowHandle): Promise<number> {
    const events = (await handle.fetchHistory()).events ?? [];
    return events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED).length;
  }

  async function terminate(...workflowIds: string[]): Promise<void> {
    for (const workflowId of workflowIds)
      await client.workflow
        .getHandle(workflowId)
        .terminate()
        .catch(() => undefined);
  }

  const research = { runId: 'malformed', question: 'What does Acme earn?', entities: ['Acme'], fields: ['revenue'] };
  const worker1 = {
    supervisorId: 'research/malformed',
    workerId: 'research/malformed/worker/1',
    entity: 'Acme',
    field: 'revenue',
    goal: 'What does Acme earn?',
    delegated: false,
    tombstoned: [],
    maxTurns: 8,
    attempt: 1,
  };

  describe('a malformed start fails the workflow at once, naming the field, with no workflow task failure', () => {
    it.each([
      ['agent', 'empty', [{}], /agentId/, AgentError.BadInput],
      ['agent', 'wrong type', [{ agentId: 42 }], /agentId/, AgentError.BadInput],
      ['agentCycle', 'empty', [{}], /agentId/, CycleError.BadInput],
      ['agentCycle', 'wrong type', [{ agentId: 'a', before: 'a scratchpad' }], /before/, CycleError.BadInput],
      ['scheduledWake', 'empty', [{}], /agentId/, ScheduleError.BadInput],
      ['scheduledWake', 'wrong type', [{ agentId: 'a', taskQueue: 7 }], /taskQueue/, ScheduleError.BadInput],
      ['stagedTask', 'empty', [{}], /agentId/, StagedError.BadInput],
      ['stagedTask', 'wrong type', [{ agentId: 'a', task: 42 }], /task/, StagedError.BadInput],
      ['research', 'empty', [{}], /runId/, ResearchError.BadInput],
      ['research', 'wrong type', [{ runId: 'r', question: 5 }], /question/, ResearchError.BadInput],
      ['research', 'malformed handover', [research, { entries: 'none' }], /handover: entries/, ResearchError.BadInput],
      ['researchWorker', 'empty', [{}], /supervisorId/, ResearchError.BadInput],
      ['researchWorker', 'wrong type', [{ ...worker1, delegated: 'yes' }], /delegated/, ResearchError.BadInput],
    ])('%s, %s', async (workflowType, _variant, args, field, failureType) => {
      const started = Date.now();
      const workflowId = `malformed/${workflowType}/${randomUUID()}`;
      const handle = await client.workflow.start(workflowType, { args, taskQueue, workflowId });
      await waitFor(async () => (await handle.describe()).status.name === 'FAILED', 10_000);
      expect(Date.now() - started).toBeLessThan(10_000);
      const error = await handle.result().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toMatchObject({ type: failureType, nonRetryable: true, message: expect.stringMatching(field) });
      expect(cause?.message).not.toContain('\n');
      expect(await workflowTaskFailures(handle)).toBe(0);
    });
  });

  describe('malformed signals are dropped and malformed updates refused: the run goes on', () => {
    it('research: a directive with `by: 5`, null or no text is dropped, a good one lands; a bad write is refused', async () => {
      const runId = `malformed-${randomUUID()}`;
      const handle = await client.workflow.start('research', {
        args: [{ ...research, runId }],
        taskQueue,
        workflowId: researchWorkflowId(runId),
      });
      try {
        await waitFor(async () => (await handle.query(boardQuery)).some((entry) => entry.type === 'STRATEGY'));
        await handle.signal('directive', { text: 'x', by: 5 });
        await handle.signal('directive', null);
        await handle.signal('directive', { text: 7 });
        await handle.signal('directive', { text: 'x'.repeat(50_000) });
        await handle.signal('directive', { text: 'prefer audited filings', by: 'ada' });
        await expect(handle.executeUpdate('write', { args: [null] })).rejects.toThrow();
        await expect(handle.executeUpdate('write', { args: [{ author: 5, draft: 'x' }] })).rejects.toThrow();
        await waitFor(async () => (await handle.query(boardQuery)).some((entry) => entry.type === 'USER_DIRECTIVE'));
        const board = await handle.query(boardQuery);
        expect(board.filter((entry) => entry.type === 'USER_DIRECTIVE')).toMatchObject([
          { author: { role: 'user', id: 'ada' }, body: { text: 'prefer audited filings' } },
        ]);
        expect((await handle.query(researchStatusQuery)).outcome).toBe('running');
        expect(await workflowTaskFailures(handle)).toBe(0);
      } finally {
        await terminate(handle.workflowId, researchWorkerId(runId, 1));
      }
    });

    it('agent: bad directives and wakes are dropped, bad updates refused, a good directive is held', async () => {
      const agentId = `malformed-${randomUUID()}`;
      const handle = await client.workflow.start('agent', {
        args: [{ agentId }],
        taskQueue,
        workflowId: agentWorkflowId(agentId),
      });
      try {
        await handle.signal('directive', 5);
        await handle.signal('directive', 'x'.repeat(30_000));
        await handle.signal('directive', '   ');
        await handle.signal('wake', { tasks: 5 });
        await handle.signal('directive', 'keep it short');
        for (const [update, args] of [
          ['configure', 'fast'],
          ['configure', { modle: 'scripted:x' }],
          ['send', null],
          ['runCycle', { tasks: 'all' }],
          ['enqueue', {}],
          ['inject', { section: 'workspace' }],
          ['import', { identity: 5 }],
        ] as const) {
          await expect(handle.executeUpdate(update, { args: [args] })).rejects.toThrow();
        }
        expect(await handle.executeUpdate('configure', { args: [{ maxIterations: 3 }] })).toMatchObject({
          maxIterations: 3,
        });
        const status = await handle.query(agentStatusQuery);
        expect(status).toMatchObject({ heldDirectives: ['keep it short'], queued: 0, cycleCount: 0 });
        expect(await workflowTaskFailures(handle)).toBe(0);
      } finally {
        await terminate(handle.workflowId);
      }
    });
  });
});
