import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ModelProvider } from '../../src/activities/model/provider';
import { Agents } from '../../src/clients/agents';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { uniqueId } from '../helpers/temporal';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

function newAgent(taskQueue: string) {
  return { agentId: uniqueId('cycle-wait'), taskQueue };
}

/** A provider whose reflect calls wait for `release()`. */
function reflectGate() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wrap = (model: ModelProvider): ModelProvider => ({
    spec: model.spec,
    async complete(request, signal) {
      if (request.system === 'reflect') await gate;
      return model.complete(request, signal);
    },
  });
  return { wrap, release };
}

/** Whether `promise` is still pending after `ms`. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol('pending');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(marker), ms)));
  try {
    return (await Promise.race([promise.then(() => undefined), timeout])) === marker;
  } finally {
    clearTimeout(timer);
  }
}

/** The reason a refused update carries. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as Error).message;
}

describe('waitForCycle: the agent answers once it has adopted a cycle', () => {
  it('resolves after reflect, with the record, and the status, cycles and memory already show the turn', async () => {
    const { wrap, release } = reflectGate();
    const script = [
      { text: 'Hello, Ada.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada', trajectory_now: 'Greeted Ada' } },
    ];
    const { worker, taskQueue } = await scriptedWorker(env, bundle, script, 'cycle-wait', {}, { wrap });
    const target = newAgent(taskQueue);
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      try {
        const answer = await agents.send(target, { message: 'Hi, I am Ada.' });
        const cycleId = cycleWorkflowId(target.agentId, 1);
        expect(answer).toMatchObject({ reply: 'Hello, Ada.', cycleId, outcome: 'completed' });

        const waiting = agents.waitForCycle(target, cycleId);
        // Reflect waits at the gate: the agent has not adopted the cycle, so the wait goes on.
        expect(await pendingAfter(waiting, 1500)).toBe(true);
        release();
        const record = await waiting;
        expect(record).toMatchObject({ cycleId, trigger: 'chat', outcome: 'completed', memoryChanged: true });

        const status = await agents.status(target.agentId);
        expect(status).toMatchObject({ running: null, cycleCount: 1 });
        expect(await agents.cycles(target.agentId)).toEqual([record]);
        expect((await agents.scratchpad(target.agentId)).identity.user).toBe('Ada');
        expect((await agents.listCycles(target.agentId)).map((cycle) => cycle.workflowId)).toEqual([cycleId]);
        // Adopted already: a second wait answers at once with the same record.
        expect(await agents.waitForCycle(target, cycleId)).toEqual(record);
      } finally {
        release();
        await agents.client.workflow
          .getHandle(agentWorkflowId(target.agentId))
          .terminate()
          .catch(() => undefined);
      }
    });
  }, 120_000);

  it('refuses at once, and leaves no event in history, a cycle the agent never ran or that is not its own', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [{ text: 'Noted.' }], 'cycle-wait-unknown');
    const target = newAgent(taskQueue);
    const agents = new Agents(env.client);
    const handle = agents.client.workflow.getHandle(agentWorkflowId(target.agentId));
    await worker.runUntil(async () => {
      try {
        await agents.configure(target, { twoPhase: false });
        expect(await refusal(agents.waitForCycle(target, cycleWorkflowId(target.agentId, 1)))).toBe(
          `agent ${target.agentId} never ran cycle 1: it has started 0 cycles`,
        );
        const answer = await agents.send(target, { message: 'I prefer tea.' });
        await agents.waitForCycle(target, answer.cycleId);

        const started = Date.now();
        expect(await refusal(agents.waitForCycle(target, cycleWorkflowId(target.agentId, 7)))).toBe(
          `agent ${target.agentId} never ran cycle 7: it has started 1 cycle`,
        );
        expect(await refusal(agents.waitForCycle(target, cycleWorkflowId('someone-else', 1)))).toBe(
          `agent/someone-else/cycle/1 is not a cycle of agent ${target.agentId}`,
        );
        expect(await refusal(agents.waitForCycle(target, ''))).toMatch(/cycleId/);
        expect(Date.now() - started).toBeLessThan(5000);

        const history = await handle.fetchHistory();
        const accepted = (history.events ?? []).filter(
          (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name,
        );
        // Only the accepted configure, send and the one wait for a cycle that ran reached history.
        expect(
          accepted.map((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name),
        ).toEqual(['configure', 'send', 'waitForCycle']);
      } finally {
        await handle.terminate().catch(() => undefined);
      }
    });
  }, 120_000);
});
