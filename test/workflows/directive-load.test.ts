import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { AgentStatus } from '../../src/core/agent/agent';
import { DIRECTIVES_BUDGET_BYTES, MAX_CYCLE_DIRECTIVES, MAX_DIRECTIVE_CHARS } from '../../src/core/cycle/input';
import type { CycleResult } from '../../src/core/cycle/input';
import { PAYLOAD_BUDGET_BYTES, payloadBytes } from '../../src/core/payload';
import { agentWorkflowId } from '../../src/common/ids';
import { gatedCycleWorker } from '../helpers/model-gate';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { testServerAddress } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const DIRECTIVES = 1000;

/** A directive of the largest size the agent takes, and the heaviest as JSON: 3-byte characters and escapes. */
function heaviest(index: number): string {
  const head = `directive ${index}: `;
  const body = '指'.repeat(700) + '\u0001'.repeat(700);
  return (head + body).padEnd(MAX_DIRECTIVE_CHARS, '令').slice(0, MAX_DIRECTIVE_CHARS);
}

/** Largest payload of any event in the histories of every run of `workflowId`, in bytes. */
async function largestPayload(client: Client, workflowId: string): Promise<{ bytes: number; runs: number }> {
  let bytes = 0;
  let runs = 0;
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (value instanceof Uint8Array) return void (bytes = Math.max(bytes, value.length));
    for (const child of Object.values(value)) walk(child);
  };
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runs++;
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: { workflowId, runId: execution.runId },
        maximumPageSize: 50,
        nextPageToken,
      });
      for (const event of page.history?.events ?? []) walk(event);
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
  return { bytes, runs };
}

async function flood(handle: WorkflowHandle, count: number): Promise<void> {
  const batch = 25;
  for (let start = 0; start < count; start += batch) {
    const sends = [];
    for (let index = start; index < Math.min(count, start + batch); index++) {
      sends.push(handle.signal('directive', heaviest(index)));
    }
    await Promise.all(sends);
  }
}

function expectWithinBudgets(status: AgentStatus): void {
  expect(status.heldDirectives.length).toBeLessThanOrEqual(100);
  expect(payloadBytes(status.heldDirectives)).toBeLessThanOrEqual(DIRECTIVES_BUDGET_BYTES);
  expect(payloadBytes(status)).toBeLessThanOrEqual(PAYLOAD_BUDGET_BYTES);
}

/*
 * 1,000 directives of the largest size, sent as the stock CLI or any client would (plain signals, by name): the
 * agent stays queryable, keeps its queued tasks and settings, tells what it dropped, and no payload it sends or
 * carries over — start input, continue-as-new input, child input or result — passes the budget.
 */
describe('a flood of directives', () => {
  let client: Client;
  let connection: Connection;

  beforeAll(async () => {
    // A page of a flooded history can pass gRPC's default 4 MB message limit.
    connection = await Connection.connect({
      address: testServerAddress(),
      channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
    });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await connection?.close();
  });

  it('held between cycles: the agent keeps its tasks and settings, and continues-as-new within the budget', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [], 'directive-load');
    const agentId = `directive-load-idle-${process.pid}-${Date.now()}`;
    const workflowId = agentWorkflowId(agentId);
    await worker.runUntil(async () => {
      const handle = await client.workflow.start('agent', { args: [{ agentId }], taskQueue, workflowId });
      try {
        await handle.executeUpdate('enqueue', { args: [{ tasks: ['first task', 'second task'] }] });
        const settings = await handle.executeUpdate('configure', {
          args: [{ maxIterations: 7, budgetChars: 9000, tools: ['fs_*'] }],
        });
        await flood(handle, DIRECTIVES);
        const status = (await handle.query('status')) as AgentStatus;
        expectWithinBudgets(status);
        expect(status.heldDirectives.length).toBeGreaterThan(0);
        // Sent 25 at a time, they arrive in any order; each is held whole.
        const whole = status.heldDirectives.filter(
          (text) => text === heaviest(Number(/^directive (\d+)/.exec(text)?.[1])),
        );
        expect(whole.length).toBe(status.heldDirectives.length);
        expect(status.settings).toEqual(settings);
        expect(status.notices.at(-1)).toMatch(/dropped a directive signal: the directives held would pass 128 KB/);
        const scratchpad = (await handle.query('scratchpad')) as { current_task: string; pending_actions: string[] };
        expect([scratchpad.current_task, ...scratchpad.pending_actions]).toEqual(['first task', 'second task']);

        // The flood's history passes the size at which Temporal suggests continuing as new.
        const { bytes, runs } = await largestPayload(client, workflowId);
        expect(runs).toBeGreaterThan(1);
        expect(bytes).toBeLessThanOrEqual(PAYLOAD_BUDGET_BYTES);
        expect((await handle.describe()).status.name).toBe('RUNNING');
      } finally {
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 240_000);

  it('into a running cycle: the cycle takes its cap, notes the rest, and every payload stays within the budget', async () => {
    const { worker, taskQueue, calling, release } = await gatedCycleWorker(env, bundle, 'directive-load-running');
    const agentId = `directive-load-running-${process.pid}-${Date.now()}`;
    const workflowId = agentWorkflowId(agentId);
    await worker.runUntil(async () => {
      const handle = await client.workflow.start('agent', { args: [{ agentId }], taskQueue, workflowId });
      try {
        await handle.executeUpdate('enqueue', { args: [{ tasks: ['the task', 'a queued task'] }] });
        const record = handle.executeUpdate('runCycle', { args: [{}] });
        await calling;
        // Through the agent, and straight to the cycle as the stock CLI could.
        const cycle = client.workflow.getHandle(`${workflowId}/cycle/1`);
        await Promise.all([flood(handle, DIRECTIVES), flood(cycle, DIRECTIVES / 5)]);
        const status = (await handle.query('status')) as AgentStatus;
        expect(status.running).not.toBeNull();
        expectWithinBudgets(status);
        release();
        await record;
        const result = (await cycle.result()) as CycleResult;
        expect(result.directives?.length).toBeGreaterThan(0);
        expect(result.directives?.length).toBeLessThanOrEqual(MAX_CYCLE_DIRECTIVES);
        expect(payloadBytes(result.directives)).toBeLessThanOrEqual(DIRECTIVES_BUDGET_BYTES);
        expect(result.after.notes).toMatch(/\[DIRECTIVE\] dropped \d+ directive signals/);
        const after = (await handle.query('status')) as AgentStatus;
        expectWithinBudgets(after);
        const scratchpad = (await handle.query('scratchpad')) as { current_task: string; pending_actions: string[] };
        expect([scratchpad.current_task, ...scratchpad.pending_actions]).toContain('a queued task');
        for (const id of [workflowId, cycle.workflowId]) {
          expect((await largestPayload(client, id)).bytes).toBeLessThanOrEqual(PAYLOAD_BUDGET_BYTES);
        }
      } finally {
        release();
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 240_000);
});
