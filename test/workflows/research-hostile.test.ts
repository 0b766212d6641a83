import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { ZERO_USAGE } from '../../src/core/cycle/model';
import { PAYLOAD_BUDGET_BYTES } from '../../src/core/payload';
import { DIRECTIVE_LIMITS } from '../../src/core/research/limits';
import { researchWorkerId, researchWorkflowId } from '../../src/common/ids';
import { boardQuery, researchStatusQuery } from '../../src/common/messages/research';
import { ensureTemporalCli } from '../../src/dev-server/provision';
import { workerSinks } from '../../src/workers/create-worker';
import { testServerAddress, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { workerToken } from '../helpers/research';
import { TEST_WORKER_THREAD, useWorkflowEnvironment } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

jest.setTimeout(180_000);

const EventType = temporal.api.enums.v1.EventType;
const { HistoryEvent } = temporal.api.history.v1;

const GOOD_INPUT = JSON.stringify({ runId: 'cli-start', question: 'Acme?', entities: ['Acme'], fields: ['revenue'] });
const EMPTY_HANDOVER = {
  entries: [],
  nextWorker: 1,
  startedAt: 0,
  directivesRead: 0,
  activeWorkers: [],
  spawned: [],
  generation: 1,
};

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

/*
 * Messages from strangers, sent the way a plain client, the stock `temporal` CLI or a forger sends them. The worker
 * runs workflows only: the run's workers wait on their first activity, so the supervisor stays open for messages
 * for as long as a test needs.
 */
describe('a research run under hostile messages', () => {
  let client: Client;
  let connection: Connection;
  let worker: Worker;
  let running: Promise<void>;
  let taskQueue: string;
  let temporalCli: string;

  beforeAll(async () => {
    connection = await Connection.connect({ address: testServerAddress() });
    client = new Client({ connection });
    taskQueue = uniqueTaskQueue('test-research-hostile');
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
    temporalCli = await ensureTemporalCli({ log: () => undefined });
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
  });

  async function startRun(extra: Record<string, unknown> = {}): Promise<{ runId: string; handle: WorkflowHandle }> {
    const runId = `hostile-${randomUUID()}`;
    const handle = await client.workflow.start('research', {
      args: [{ runId, question: 'What does Acme earn?', entities: ['Acme'], fields: ['revenue'], ...extra }],
      taskQueue,
      workflowId: researchWorkflowId(runId),
    });
    await waitFor(async () => (await handle.query(boardQuery)).some((entry) => entry.type === 'STRATEGY'));
    return { runId, handle };
  }

  async function stop(runId: string): Promise<void> {
    const workers = [1, 2, 3, 4].map((n) => researchWorkerId(runId, n));
    for (const workflowId of [researchWorkflowId(runId), ...workers]) {
      await client.workflow
        .getHandle(workflowId)
        .terminate()
        .catch(() => undefined);
    }
  }

  /** Every run of the workflow, continue-as-new included, newest first. */
  async function histories(workflowId: string) {
    const all = [];
    let runId: string | undefined;
    do {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      all.push(history);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    } while (runId);
    return all;
  }

  it('takes 1,000 directives of the longest size from a plain client: queryable, capped, every event in budget', async () => {
    const { runId, handle } = await startRun({ continueAsNewEvents: 300 });
    const started = Date.now();
    try {
      const text = (n: number) => `directive ${n}: `.padEnd(DIRECTIVE_LIMITS.text, 'x');
      for (let batch = 0; batch < 1000; batch += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, index) => handle.signal('directive', { text: text(batch + index) })),
        );
      }
      const minutes = Math.ceil((Date.now() - started) / 60_000) + 1;
      const dropped = async () =>
        (await handle.query(researchStatusQuery)).notes
          .map((note) => Number(/\(×(\d+)\)$/.exec(note)?.[1] ?? 1))
          .reduce((sum, count) => sum + count, 0);
      const landed = async () =>
        (await handle.query(boardQuery)).filter((entry) => entry.type === 'USER_DIRECTIVE').length;
      await waitFor(async () => (await landed()) + (await dropped()) === 1000, 60_000);

      const board = await handle.query(boardQuery);
      const status = await handle.query(researchStatusQuery);
      const directives = board.filter((entry) => entry.type === 'USER_DIRECTIVE');
      expect(directives.length).toBeGreaterThanOrEqual(DIRECTIVE_LIMITS.perMinute);
      expect(directives.length).toBeLessThanOrEqual(DIRECTIVE_LIMITS.perMinute * minutes);
      // Each directive is read into one STRATEGY, which lists it once.
      const listed = board.flatMap((entry) => (entry.type === 'STRATEGY' ? entry.body.directives : []));
      expect(listed.length).toBeLessThanOrEqual(directives.length);
      expect(new Set(listed).size).toBe(listed.length);
      expect(status.outcome).toBe('running');
      expect(status.notes[0]).toMatch(/^more than 10 directives in a minute: the extra ones are dropped \(×\d+\)$/);

      const runs = await histories(handle.workflowId);
      const events = runs.flatMap((history) => history.events ?? []);
      const largest = Math.max(...events.map((event) => HistoryEvent.encode(event).finish().length));
      expect(largest).toBeLessThan(PAYLOAD_BUDGET_BYTES);
      // A task failure forced by a signal racing a continue-as-new is the server's doing (its history service fails
      // the task, with UNHANDLED_COMMAND or FORCE_CLOSE_COMMAND as the race falls); none from a worker may occur.
      const failures = events.filter(
        (event) =>
          event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED &&
          event.workflowTaskFailedEventAttributes?.cause !==
            temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND &&
          event.workflowTaskFailedEventAttributes?.identity !== 'history-service',
      );
      expect(failures).toEqual([]);
      process.stdout.write(
        `1,000 directives of ${DIRECTIVE_LIMITS.text} characters: ${directives.length} landed, ` +
          `${runs.length} runs, ${events.length} events, largest event ${largest} bytes, ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    } finally {
      await stop(runId);
    }
  });

  it('drops malformed and oversized directives the stock temporal CLI sends, with notes, and lands an id once', async () => {
    const { runId, handle } = await startRun();
    const signal = (input: string) =>
      promisify(execFile)(
        temporalCli,
        ['workflow', 'signal', '--address', testServerAddress(), '-w', handle.workflowId, '--name', 'directive'].concat(
          ['--input', input],
        ),
        { maxBuffer: 1 << 20 },
      );
    try {
      await signal('{"text": 5}');
      await signal('null');
      await signal('{"text": "x", "by": 5}');
      await signal(JSON.stringify({ text: 'y'.repeat(DIRECTIVE_LIMITS.text + 1) }));
      await signal(JSON.stringify({ text: 'z'.repeat(50_000) }));
      await signal('{"text": "prefer audited filings", "id": "m-1"}');
      await signal('{"text": "prefer audited filings", "id": "m-1"}');
      await waitFor(async () => (await handle.query(researchStatusQuery)).notes.length > 0);
      await waitFor(async () => (await handle.query(boardQuery)).some((entry) => entry.type === 'USER_DIRECTIVE'));
      await waitFor(async () => /×5\)$/.test((await handle.query(researchStatusQuery)).notes[0] ?? ''));

      const status = await handle.query(researchStatusQuery);
      expect(status.notes).toEqual([expect.stringMatching(/^a malformed directive was dropped: .* \(×5\)$/)]);
      const board = await handle.query(boardQuery);
      expect(board.filter((entry) => entry.type === 'USER_DIRECTIVE')).toMatchObject([
        { author: { role: 'user', id: 'user' }, body: { text: 'prefer audited filings' } },
      ]);
      expect(status.outcome).toBe('running');
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)).toEqual([]);
    } finally {
      await stop(runId);
    }
  });

  it.each([
    ['research', 'a null input', ['null'], /invalid research input/],
    ['research', 'a handover with a malformed note', [GOOD_INPUT, '{"notes": "x"}'], /invalid research handover/],
    [
      'research',
      'a handover with bad directive ids',
      [GOOD_INPUT, JSON.stringify({ ...EMPTY_HANDOVER, directiveIds: [5] })],
      /handover: directiveIds\[0\]/,
    ],
    ['researchWorker', 'a string', ['"work"'], /invalid research worker input/],
  ])(
    'fails a %s start by the stock temporal CLI with %s at once, without a task failure',
    async (type, _name, inputs, message) => {
      const workflowId = `hostile/${type}/${randomUUID()}`;
      await promisify(execFile)(temporalCli, [
        'workflow',
        'start',
        '--address',
        testServerAddress(),
        '--task-queue',
        taskQueue,
        '--type',
        type,
        '-w',
        workflowId,
        ...inputs.flatMap((input) => ['--input', input]),
      ]);
      const handle = client.workflow.getHandle(workflowId);
      await waitFor(async () => (await handle.describe()).status.name === 'FAILED', 10_000);

      const failure = await handle.result().catch((error: { cause?: unknown }) => error.cause);
      expect(failure).toMatchObject({ nonRetryable: true, message: expect.stringMatching(message) });
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)).toEqual([]);
    },
  );

  it("refuses a forged worker write reporting absurd usage; the run's usage stays what its workers reported", async () => {
    const { runId, handle } = await startRun();
    const author = { role: 'worker', id: researchWorkerId(runId, 1) };
    const fact = { entity: 'Acme', field: 'revenue' };
    const absurd = { ...ZERO_USAGE, inputTokens: 1e12, outputTokens: 1e12, cacheReadTokens: 1e12 };
    const models = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`model-${index}`, absurd]));
    try {
      await waitFor(async () => (await handle.query(researchStatusQuery)).activeWorkers.length === 1);
      // The worker's own token: usage is bounded even on a write that proves who sent it.
      const token = await workerToken(env.client, author.id);
      await handle.executeUpdate('write', {
        args: [{ author, draft: { type: 'PENDING', body: { ...fact, assignedTo: author.id } }, token }],
      });
      const forged = handle.executeUpdate('write', {
        args: [{ author, draft: { type: 'UNVERIFIED', body: { ...fact, reason: 'x' } }, usageByModel: models, token }],
      });
      await expect(forged).rejects.toThrow();
      await forged.catch((error: Error) => expect(String(error.cause)).toMatch(/usage of 6000000000000\d* tokens/));
      const usage = { m: { ...ZERO_USAGE, inputTokens: 120 } };
      await handle.executeUpdate('write', {
        args: [{ author, draft: { type: 'UNVERIFIED', body: { ...fact, reason: 'x' } }, usageByModel: usage, token }],
      });

      expect((await handle.query(researchStatusQuery)).usage.usage).toEqual(usage.m);
    } finally {
      await stop(runId);
    }
  });
});
