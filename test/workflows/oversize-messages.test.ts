import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { Agents } from '../../src/clients/agents';
import { isPayloadLimitRefusal } from '../../src/clients/payload-limit';
import { reportError } from '../../src/cli/main';
import { encryptionDataConverter } from '../../src/common/encryption-codec';
import { agentWorkflowId } from '../../src/common/ids';
import { directiveSignal, statusQuery } from '../../src/common/messages/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import { PAYLOAD_BUDGET_BYTES, SERVER_PAYLOAD_LIMIT_BYTES } from '../../src/core/payload';
import { ensureTemporalCli } from '../../src/dev-server/provision';
import { testServerAddress, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { gatedCycleWorker } from '../helpers/model-gate';
import { useWorkflowEnvironment } from '../helpers/worker';

const EventType = temporal.api.enums.v1.EventType;
const MB = 1024 * 1024;

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

/** Bytes of a signal's input as the server measures it: the Payloads message the JSON converter makes of `args`. */
function inputBytes(...args: unknown[]): number {
  const payloads = args.map((arg) => defaultPayloadConverter.toPayload(arg));
  return temporal.api.common.v1.Payloads.encode({ payloads }).finish().length;
}

/** A string whose signal input is exactly `bytes` as the server measures it. */
function signalOfSize(bytes: number): string {
  let text = 'x'.repeat(bytes);
  while (inputBytes(text) > bytes) text = text.slice(0, text.length - (inputBytes(text) - bytes));
  return text;
}

/** Largest payload, in bytes, any event of the history carries. */
function largestPayload(events: temporal.api.history.v1.IHistoryEvent[]): number {
  let bytes = 0;
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (value instanceof Uint8Array) return void (bytes = Math.max(bytes, value.length));
    for (const child of Object.values(value)) walk(child);
  };
  events.forEach(walk);
  return bytes;
}

const taskFailures = (events: temporal.api.history.v1.IHistoryEvent[]) =>
  events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);

/*
 * The dev server the tests run on is the one the project starts, with its payload limits. A message over the limit
 * is refused to its sender and never enters a history, so it cannot push a workflow task past the server's buffer of
 * events that arrive while the task runs (which used to force-close that task).
 */
describe('messages over the payload limit', () => {
  let client: Client;
  let connection: Connection;

  beforeAll(async () => {
    connection = await Connection.connect({ address: testServerAddress() });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await connection?.close();
  });

  it('takes a payload of exactly the limit and one of the budget encrypted; refuses a byte more', async () => {
    // No worker polls this queue: only what the server admits is in question.
    const workflowId = `oversize/bounds/${randomUUID()}`;
    const handle = await client.workflow.start('agent', {
      args: [{ agentId: 'bounds' }],
      taskQueue: uniqueTaskQueue('oversize-bounds'),
      workflowId,
    });
    try {
      const atLimit = signalOfSize(SERVER_PAYLOAD_LIMIT_BYTES);
      expect(inputBytes(atLimit)).toBe(SERVER_PAYLOAD_LIMIT_BYTES);
      await handle.signal('directive', atLimit);
      const over = await handle.signal('directive', `${atLimit}x`).catch((error: unknown) => error);
      expect(isPayloadLimitRefusal(over)).toBe(true);

      const key = { id: 'k1', key: new Uint8Array(randomBytes(32)) };
      const encrypted = new Client({ connection, dataConverter: encryptionDataConverter([key]) });
      const budget = { text: 'y'.repeat(PAYLOAD_BUDGET_BYTES - JSON.stringify({ text: '' }).length) };
      expect(JSON.stringify(budget).length).toBe(PAYLOAD_BUDGET_BYTES);
      await encrypted.workflow.getHandle(workflowId).signal('directive', budget);
    } finally {
      await handle.terminate().catch(() => undefined);
    }
  });

  it('refuses three 1 MB directives to a running agent, drops wrong shapes; no task fails', async () => {
    const { worker, taskQueue, calling, release } = await gatedCycleWorker(env, bundle, 'oversize');
    const agentId = `oversize-${randomUUID()}`;
    const workflowId = agentWorkflowId(agentId);
    const temporalCli = await ensureTemporalCli({ log: () => undefined });
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'oversize-'));
    const megabyte = 'm'.repeat(MB);
    await worker.runUntil(async () => {
      const handle = await client.workflow.start('agent', { args: [{ agentId }], taskQueue, workflowId });
      try {
        const record = handle.executeUpdate('runCycle', { args: [{ tasks: ['the task'] }] });
        await calling;
        const cycle = client.workflow.getHandle(`${workflowId}/cycle/1`);
        const targets = [handle, cycle];

        // One after another, as a plain client (another SDK, a script) sends them, to the agent and straight to its
        // cycle: each arrives while the workflow task the one before woke may still run, which the server buffers.
        const wrongShapes = [5, null, '   ', { text: 'not a string' }, 'x'.repeat(30_000), ['a list']];
        const send = async (target: WorkflowHandle) => {
          const refused: unknown[] = [];
          for (let count = 0; count < 3; count++)
            refused.push(await target.signal('directive', megabyte).catch((error) => error));
          for (const value of wrongShapes) await target.signal('directive', value);
          return refused;
        };
        const refusals = (await Promise.all(targets.map(send))).flat();
        await handle.signal(directiveSignal, 'keep it short');
        expect(refusals.map(isPayloadLimitRefusal)).toEqual([true, true, true, true, true, true]);

        // Each sender hears it in one line naming the limit: the CLI, the library, the stock temporal CLI.
        const limit = `limit.blobSize.error: ${SERVER_PAYLOAD_LIMIT_BYTES} bytes`;
        const printed = await reportError(refusals[0], false);
        expect(printed.exitCode).toBe(1);
        expect(printed.text).toMatch(/^scratchpad: the request was refused by the Temporal server: [^\n]+\n$/);
        expect(printed.text).toContain(limit);
        const agents = new Agents(client);
        const target = { agentId, taskQueue };
        const refused = await agents.signal(target, 'directive', [megabyte]).catch((error: Error) => error);
        expect(refused).toBeInstanceOf(RangeError);
        expect((refused as Error).message).toMatch(
          new RegExp(`^the directive signal to agent ${agentId} was refused by the Temporal server: [^\n]+$`),
        );
        expect((refused as Error).message).toContain(limit);
        expect((refused as Error).message).toContain('a directive of at most 2000 characters');
        await expect(agents.directive(target, megabyte)).rejects.toThrow('a directive is at most 2000 characters');
        const file = path.join(directory, 'directive.json');
        fs.writeFileSync(file, JSON.stringify(megabyte));
        const stock = promisify(execFile)(temporalCli, [
          ...['workflow', 'signal', '--address', testServerAddress(), '-w', workflowId],
          ...['--name', 'directive', '--input-file', file],
        ]);
        await expect(stock).rejects.toMatchObject({ stderr: expect.stringMatching(/Blob data size exceeds limit/) });

        // The wrong shapes reached the agent and were dropped with a note; the good directive reached the cycle.
        await waitFor(async () => (await handle.query(statusQuery)).notices.length >= wrongShapes.length);
        release();
        await record;
        const result = (await cycle.result()) as CycleResult;
        expect(result.outcome).toBe('completed');
        expect(result.directives?.map((directive) => directive.text)).toEqual(['keep it short']);
        expect(result.after.notes).toMatch(/\[DIRECTIVE\] dropped \d+ directive signals/);
        const status = await handle.query(statusQuery);
        expect(status.notices.filter((notice) => /dropped a directive signal/.test(notice)).length).toBe(
          wrongShapes.length,
        );

        for (const target of targets) {
          const events = (await target.fetchHistory()).events ?? [];
          expect(taskFailures(events)).toEqual([]);
          expect(largestPayload(events)).toBeLessThan(MB / 8);
        }
      } finally {
        release();
        await handle.terminate().catch(() => undefined);
        fs.rmSync(directory, { recursive: true, force: true });
      }
    });
  }, 120_000);
});
