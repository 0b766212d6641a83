import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { Agents } from '../../src/clients/agents';
import type { AgentStatus, SendResult } from '../../src/core/agent/agent';
import { cyclesQuery, scratchpadQuery, statusQuery } from '../../src/common/messages/agent';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { uniqueId, waitFor } from '../helpers/temporal';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

function newAgent(taskQueue: string) {
  return { agentId: uniqueId('cancel'), taskQueue };
}

/** Why an update was refused: the workflow's message, not the client's wrapper. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    return String((error as WorkflowUpdateFailedError).cause?.message);
  }
  throw new Error('the update was not refused');
}

// Turn 1 gives the agent a memory; turn 2's respond is slow (cancelled long before it answers); turn 3 is the next send.
const SCRIPT: ScriptEntry[] = [
  { text: 'Hello, Ada.' },
  { tool: 'update_scratchpad', args: { identity_user: 'Ada', trajectory_now: 'Greeted Ada' } },
  { text: 'A very slow answer.', delayMs: 60_000 },
  { text: 'Still here.' },
  { tool: 'update_scratchpad', args: { trajectory_now: 'Answered after a cancelled turn' } },
];

describe('cancelCycle: a chat turn cancelled mid-respond', () => {
  it('ends the cycle CANCELLED, leaves the memory as it was, records `cancelled`, and the next send works', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, SCRIPT, 'agent-cancel');
    const target = newAgent(taskQueue);
    const agents = new Agents(env.client);
    const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
    const cycle2 = cycleWorkflowId(target.agentId, 2);
    await worker.runUntil(async () => {
      try {
        expect((await agents.send(target, { message: 'Hi, I am Ada.' })).reply).toBe('Hello, Ada.');
        await env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 1)).result();
        const before = await waitFor(
          () => handle.query(scratchpadQuery),
          (state) => state.identity.user === 'Ada',
        );
        const memoBefore = (await handle.describe()).memo?.scratchpad;
        expect(memoBefore).toEqual(before);

        const slow = agents.send(target, { message: 'Tell me something slowly.' });
        await waitFor(
          async () => model.requests.length,
          (count) => count === 3,
        );
        expect((await handle.query(statusQuery)).running?.cycleId).toBe(cycle2);
        // Only the running cycle can be cancelled; a refusal changes nothing.
        expect(await refusal(agents.cancelCycle(target, cycleWorkflowId(target.agentId, 1)))).toContain(
          'is not the cycle that runs now',
        );

        const started = Date.now();
        const record = await agents.cancelCycle(target, cycle2);
        expect(record).toMatchObject({ cycleId: cycle2, trigger: 'chat', outcome: 'cancelled' });
        const answer: SendResult = await slow;
        expect(Date.now() - started).toBeLessThan(5000);
        expect(answer).toEqual({ reply: '', cycleId: cycle2, outcome: 'cancelled' });
        expect((await env.client.workflow.getHandle(cycle2).describe()).status.name).toBe('CANCELLED');

        // Exactly as it was: no after-state adopted, no notes line, not even a new last_updated.
        expect(await handle.query(scratchpadQuery)).toEqual(before);
        const memo = (await handle.describe()).memo as { scratchpad: unknown; status: AgentStatus };
        expect(memo.scratchpad).toEqual(before);
        expect(memo.status).toMatchObject({ agentId: target.agentId, cycleCount: 2, running: null });
        expect((await handle.query(cyclesQuery)).at(-1)).toMatchObject({ cycleId: cycle2, outcome: 'cancelled' });
        expect(await refusal(agents.cancelCycle(target, cycle2))).toContain('no cycle runs now');

        const next = await agents.send(target, { message: 'Are you there?' });
        expect(next).toEqual({
          reply: 'Still here.',
          cycleId: cycleWorkflowId(target.agentId, 3),
          outcome: 'completed',
        });
        await env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 3)).result();
        const after = await waitFor(
          () => handle.query(scratchpadQuery),
          (state) => state.trajectory.now === 'Answered after a cancelled turn',
        );
        expect(after.identity.user).toBe('Ada');
        // The cancelled respond was asked once and never again.
        expect(model.requests.map((request) => request.system)).toEqual([
          'respond',
          'reflect',
          'respond',
          'respond',
          'reflect',
        ]);
      } finally {
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 180_000);

  it('a send with a model runs its turn on that model, not the agent’s', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, SCRIPT.slice(0, 2), 'agent-send-model');
    const target = newAgent(taskQueue);
    const agents = new Agents(env.client);
    const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
    await worker.runUntil(async () => {
      try {
        await agents.configure(target, { model: 'scripted:test' });
        // The worker knows only scripted:test: a turn naming another model fails with the worker's reason.
        const refused = await agents.send(target, { message: 'Hi.', model: 'scripted:elsewhere' });
        expect(refused).toMatchObject({ outcome: 'failed', cycleId: cycleWorkflowId(target.agentId, 1) });
        expect(refused.error).toContain('scripted:elsewhere');
        expect(model.requests).toHaveLength(0);
        const answer = await agents.send(target, { message: 'Hi, I am Ada.', model: 'scripted:test' });
        expect(answer.reply).toBe('Hello, Ada.');
      } finally {
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 120_000);
});
