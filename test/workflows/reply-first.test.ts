import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ModelProvider } from '../../src/activities/model/provider';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { updateAgent } from '../../src/clients/agents';
import type { AgentStatus, SendResult } from '../../src/core/agent/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { scratchpadQuery, sendUpdate, statusQuery } from '../../src/common/messages/agent';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { agentIdKey } from '../../src/common/search-attributes';
import { uniqueId, waitFor } from '../helpers/temporal';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

function newAgent(taskQueue: string) {
  return { agentId: uniqueId('reply-first'), taskQueue };
}

/** A provider whose reflect calls wait for `release()`; `reflecting` resolves when the first one arrives. */
function reflectGate() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const reflecting = new Promise<void>((resolve) => (arrived = resolve));
  const wrap = (model: ModelProvider): ModelProvider => ({
    spec: model.spec,
    async complete(request, signal) {
      if (request.system === 'reflect') {
        arrived();
        await gate;
      }
      return model.complete(request, signal);
    },
  });
  return { wrap, release, reflecting };
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many `reply` signals a workflow's history shows it sending. */
async function replySignalsSent(workflowId: string): Promise<number> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter(
    (event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'reply',
  ).length;
}

const TURNS: ScriptEntry[] = [
  { text: 'Hello, Ada.' },
  { tool: 'update_scratchpad', args: { identity_user: 'Ada', trajectory_now: 'Greeted Ada' } },
  { text: 'You are Ada.' },
  { tool: 'update_scratchpad', args: { trajectory_now: 'Told Ada her name' } },
];

describe('the reply first: send answers when respond ends, reflect runs after', () => {
  it('the reply arrives while reflect still waits on the model; the memory follows once reflect ends', async () => {
    const { wrap, release, reflecting } = reflectGate();
    const { worker, taskQueue } = await scriptedWorker(env, bundle, TURNS.slice(0, 2), 'reply-first', {}, { wrap });
    const target = newAgent(taskQueue);
    const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
    await worker.runUntil(async () => {
      try {
        const sent = updateAgent(env.client, target, sendUpdate, [{ message: 'Hi, I am Ada.' }]);
        await within(reflecting, 30_000, 'reflect call');
        const result = await within(sent, 30_000, 'send while reflect waits');
        expect(result).toEqual({
          reply: 'Hello, Ada.',
          cycleId: cycleWorkflowId(target.agentId, 1),
          outcome: 'completed',
        });
        // The cycle is still reflecting: the agent has not adopted its memory yet.
        const status = await handle.query(statusQuery);
        expect(status.running?.cycleId).toBe(cycleWorkflowId(target.agentId, 1));
        const cycle = env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 1));
        expect((await cycle.describe()).status.name).toBe('RUNNING');
        expect((await handle.query(scratchpadQuery)).identity.user).not.toBe('Ada');

        release();
        const after = (await cycle.result()) as CycleResult;
        expect(after.outcome).toBe('completed');
        const memory = await waitFor(
          () => handle.query(scratchpadQuery),
          (state) => state.identity.user === 'Ada',
        );
        expect(memory.trajectory.now).toBe('Greeted Ada');
        expect(await replySignalsSent(cycle.workflowId)).toBe(1);
      } finally {
        release();
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 120_000);

  it('a turn sent during reflect is queued, not lost, and responds from the reflected memory', async () => {
    const { wrap, release, reflecting } = reflectGate();
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, TURNS, 'reply-first-queued', {}, { wrap });
    const target = newAgent(taskQueue);
    const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
    await worker.runUntil(async () => {
      try {
        const first = updateAgent(env.client, target, sendUpdate, [{ message: 'Hi, I am Ada.' }]);
        await within(reflecting, 30_000, 'reflect call');
        expect((await within(first, 30_000, 'first send')).reply).toBe('Hello, Ada.');

        const second = updateAgent(env.client, target, sendUpdate, [{ message: 'What is my name?' }]);
        const queued = await waitFor(
          () => handle.query(statusQuery),
          (status: AgentStatus) => status.queued === 1,
        );
        expect(queued).toMatchObject({ queued: 1, running: { cycleId: cycleWorkflowId(target.agentId, 1) } });
        // Turn 1's reflect waits at the gate, and turn 2 has not reached the model: cycles run one at a time.
        expect(model.requests.map((request) => request.system)).toEqual(['respond']);

        release();
        const answer: SendResult = await within(second, 60_000, 'second send');
        expect(answer).toEqual({
          reply: 'You are Ada.',
          cycleId: cycleWorkflowId(target.agentId, 2),
          outcome: 'completed',
        });
        const respond2 = model.requests[2];
        expect(respond2?.system).toBe('respond');
        expect(JSON.stringify(respond2?.messages)).toContain('Greeted Ada');
        const cycle2 = env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 2));
        const before2 = (await cycle2.fetchHistory()).events?.[0];
        expect(before2?.workflowExecutionStartedEventAttributes).toBeTruthy();
        await cycle2.result();
        expect(model.requests.map((request) => request.system)).toEqual(['respond', 'reflect', 'respond', 'reflect']);
      } finally {
        release();
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 120_000);

  it('a reflect that fails leaves the reply delivered and the memory as it was, the failure in notes', async () => {
    const { wrap, release, reflecting } = reflectGate();
    const script: ScriptEntry[] = [
      { text: 'Hello, Ada.' },
      { error: { type: 'ModelError.Auth', message: '401 bad key', nonRetryable: true } },
    ];
    const { worker, taskQueue } = await scriptedWorker(env, bundle, script, 'reply-first-failed', {}, { wrap });
    const target = newAgent(taskQueue);
    const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
    await worker.runUntil(async () => {
      try {
        const sent = updateAgent(env.client, target, sendUpdate, [{ message: 'Hi, I am Ada.' }]);
        await within(reflecting, 30_000, 'reflect call');
        const before = await handle.query(scratchpadQuery);
        expect(await within(sent, 30_000, 'send while reflect waits')).toEqual({
          reply: 'Hello, Ada.',
          cycleId: cycleWorkflowId(target.agentId, 1),
          outcome: 'completed',
        });
        release();
        const cycle = env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 1));
        const result = (await cycle.result()) as CycleResult;
        expect(result).toMatchObject({ outcome: 'failed', reply: 'Hello, Ada.' });
        const status = await waitFor(
          () => handle.query(statusQuery),
          (current) => current.running === null,
        );
        expect(status.running).toBeNull();
        const memory = await handle.query(scratchpadQuery);
        expect(memory.notes).toBe(`Cycle ${cycle.workflowId} failed: ModelError.Auth: 401 bad key`);
        expect({ ...memory, notes: '', last_updated: null }).toEqual({ ...before, notes: '', last_updated: null });
      } finally {
        release();
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 120_000);

  it('a cycle with no agent parent, and a single-phase turn, send no reply signal', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, TURNS.slice(0, 2), 'reply-first-bare');
    const agentId = newAgent(taskQueue).agentId;
    const workflowId = cycleWorkflowId(agentId, 1);
    const result = await worker.runUntil(async () => {
      const cycle = await env.client.workflow.start('agentCycle', {
        taskQueue,
        workflowId,
        args: [{ agentId, kind: 'chat', before: defaultScratchpad(), message: 'Hi, I am Ada.', twoPhase: true }],
        typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
      });
      return (await cycle.result()) as CycleResult;
    });
    expect(result).toMatchObject({ outcome: 'completed', reply: 'Hello, Ada.' });
    expect(result.after.identity.user).toBe('Ada');
    expect(await replySignalsSent(workflowId)).toBe(0);

    const single = await scriptedWorker(env, bundle, [{ text: 'Noted.' }], 'reply-first-single');
    const target = { ...newAgent(single.taskQueue), settings: { twoPhase: false } };
    await single.worker.runUntil(async () => {
      const answer = await updateAgent(env.client, target, sendUpdate, [{ message: 'I prefer tea.' }]);
      expect(answer).toMatchObject({ reply: 'Noted.', outcome: 'completed' });
      await env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 1)).result();
      await env.client.workflow.getHandle(agentWorkflowId(target.agentId)).terminate();
    });
    expect(await replySignalsSent(cycleWorkflowId(target.agentId, 1))).toBe(0);
  }, 120_000);
});
