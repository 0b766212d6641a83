import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { signalAgent, updateAgent } from '../../src/clients/agents';
import type { AgentSettings, AgentStatus, CycleRecord, DirectiveRecord } from '../../src/core/agent/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import { MAX_COMPLETED_TASKS } from '../../src/core/scratchpad/state-caps';
import type { Scratchpad } from '../../src/core/scratchpad/scratchpad';
import {
  cyclesQuery,
  directiveSignal,
  directivesQuery,
  enqueueUpdate,
  importUpdate,
  injectUpdate,
  runCycleUpdate,
  scratchpadQuery,
  sendUpdate,
  statusQuery,
  waitForCycleUpdate,
} from '../../src/common/messages/agent';
import { uniqueId, waitFor } from '../helpers/temporal';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { agentWorkflowId } from '../../src/common/ids';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

function newAgent(taskQueue: string, settings?: Partial<AgentSettings>) {
  return { agentId: uniqueId('agent-test'), taskQueue, settings };
}

describe('agent workflow: reflective chat turns', () => {
  it('responds from the scratchpad alone, then reflects into it', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [
      { text: 'Nice to meet you, Ada.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada, a data engineer', trajectory_now: 'Introductions' } },
      { text: 'You are Ada.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Answered a question about her name' } },
    ]);
    const target = newAgent(taskQueue);
    await worker.runUntil(async () => {
      const first = await updateAgent(env.client, target, sendUpdate, [
        { message: 'Hello, I am Ada and I build pipelines.' },
      ]);
      expect(first).toEqual({
        reply: 'Nice to meet you, Ada.',
        cycleId: `agent/${target.agentId}/cycle/1`,
        outcome: 'completed',
      });
      const second = await updateAgent(env.client, target, sendUpdate, [{ message: 'What is my name?' }]);
      expect(second.reply).toBe('You are Ada.');
      // The reply comes before reflect: the memory is the turn's once the agent has adopted its cycle's result.
      const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
      await handle.executeUpdate(waitForCycleUpdate, { args: [{ cycleId: second.cycleId }] });
      const scratchpad = await handle.query(scratchpadQuery);
      expect(scratchpad.identity.user).toBe('Ada, a data engineer');
      expect(scratchpad.trajectory.now).toBe('Answered a question about her name');
      expect(scratchpad.last_updated).toMatch(/^\d{4}-/);
      const cycles = await handle.query(cyclesQuery);
      expect(cycles.map((cycle) => [cycle.trigger, cycle.outcome])).toEqual([
        ['chat', 'completed'],
        ['chat', 'completed'],
      ]);
    });

    const [respond1, reflect1, respond2, reflect2] = model.requests;
    expect(respond1?.system).toBe('respond');
    expect(reflect1?.system).toBe('reflect');
    expect(reflect1?.toolChoice).toEqual({ name: 'update_scratchpad' });
    expect(reflect1?.tools).toEqual(['update_scratchpad']);
    expect(reflect1?.messages[0]?.content).toContain('ASSISTANT: Nice to meet you, Ada.');
    expect(reflect2?.system).toBe('reflect');
    // The second respond context is the scratchpad plus this input: no earlier turn, no earlier reply.
    expect(respond2?.messages).toHaveLength(3);
    const context = JSON.stringify(respond2?.messages);
    expect(context).not.toContain('Hello, I am Ada and I build pipelines.');
    expect(context).not.toContain('Nice to meet you, Ada.');
    expect(context).toContain('Ada, a data engineer');
    expect(respond2?.messages[2]?.content).toBe('What is my name?');
  });

  it('single-phase mode takes the update from the response itself', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [
      {
        text: 'Noted: tea it is.',
        tool: 'update_scratchpad',
        args: { understanding_known: 'APPEND: - (user) prefers tea' },
      },
    ]);
    const target = newAgent(taskQueue, { twoPhase: false });
    await worker.runUntil(async () => {
      const result = await updateAgent(env.client, target, sendUpdate, [{ message: 'I prefer tea.' }]);
      expect(result.reply).toBe('Noted: tea it is.');
      const scratchpad = await env.client.workflow.getHandle(agentWorkflowId(target.agentId)).query(scratchpadQuery);
      expect(scratchpad.understanding.known).toBe('- (user) prefers tea');
    });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.system).toBe('respond_single');
    expect(model.requests[0]?.tools).toContain('update_scratchpad');
  });

  it('rejects bad update arguments synchronously with a clear message', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, []);
    const target = newAgent(taskQueue);
    await worker.runUntil(async () => {
      const rejection = (pattern: RegExp) => ({
        cause: expect.objectContaining({ message: expect.stringMatching(pattern) }),
      });
      await expect(updateAgent(env.client, target, sendUpdate, [{ message: '   ' }])).rejects.toMatchObject(
        rejection(/too small|at least/i),
      );
      await expect(
        updateAgent(env.client, target, injectUpdate, [{ section: 'nonsense' as never, content: 'x' }]),
      ).rejects.toMatchObject(rejection(/section/));
      await expect(
        updateAgent(env.client, target, injectUpdate, [{ section: 'workspace', content: 'x'.repeat(6000) }]),
      ).rejects.toMatchObject(rejection(/5000/));
      const status = await env.client.workflow.getHandle(agentWorkflowId(target.agentId)).query(statusQuery);
      expect(status.cycleCount).toBe(0);
    });
  });
});

describe('agent workflow: directives', () => {
  it('forwards a directive to the running cycle, seen at its next iteration', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [
      { tool: 'echo', args: { message: 'working' }, delayMs: 2000 },
      { tool: 'done', args: { summary: 'followed the directive' } },
    ]);
    const target = newAgent(taskQueue);
    await worker.runUntil(async () => {
      const cycle = updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['Summarise the logs'] }]);
      const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
      await waitFor(
        () => handle.query(statusQuery),
        (status: AgentStatus) => status.running !== null,
      );
      await handle.signal(directiveSignal, 'Only look at errors');
      const record = await cycle;
      expect(record.outcome).toBe('completed');
      expect(record.directives).toEqual(['Only look at errors']);
      expect(await handle.query(directivesQuery)).toEqual([{ text: 'Only look at errors', cycleId: record.cycleId }]);
      const child = await env.client.workflow.getHandle(record.cycleId).result();
      expect((child as CycleResult).directives).toEqual([{ text: 'Only look at errors', iteration: 2 }]);
    });
    expect(model.requests[0]?.messages[0]?.content).not.toContain('USER DIRECTIVE');
    expect(model.requests[1]?.messages[0]?.content).toContain('USER DIRECTIVE: Only look at errors');
  });

  it('holds a directive sent between cycles for the next one', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [{ tool: 'done', args: { summary: 'ok' } }]);
    const target = newAgent(taskQueue);
    await worker.runUntil(async () => {
      await signalAgent(env.client, target, directiveSignal, ['Be brief']);
      const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
      const held = await waitFor(
        () => handle.query(statusQuery),
        (status: AgentStatus) => status.heldDirectives.length > 0,
      );
      expect(held.heldDirectives).toEqual(['Be brief']);
      const record = await updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['Say hi'] }]);
      expect(record.directives).toEqual(['Be brief']);
      expect((await handle.query(statusQuery)).heldDirectives).toEqual([]);
      expect(await handle.query(directivesQuery)).toEqual([{ text: 'Be brief', cycleId: record.cycleId }]);
    });
    expect(model.requests[0]?.messages[0]?.content).toContain('USER DIRECTIVE: Be brief');
  });
});

describe('agent workflow: cycles and memory', () => {
  it('serialises concurrent cycle requests: never two cycles of one agent at once', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'done', args: { summary: 'first' }, delayMs: 800 },
      { tool: 'done', args: { summary: 'second' }, delayMs: 800 },
      { tool: 'done', args: { summary: 'third' }, delayMs: 800 },
    ]);
    const target = newAgent(taskQueue);
    await worker.runUntil(async () => {
      const records = await Promise.all(
        ['A', 'B', 'C'].map((task) => updateAgent(env.client, target, runCycleUpdate, [{ tasks: [task] }])),
      );
      expect(new Set(records.map((record) => record.cycleId)).size).toBe(3);
      const spans = await Promise.all(
        records.map(async (record) => {
          const description = await env.client.workflow.getHandle(record.cycleId).describe();
          return { start: description.startTime.getTime(), end: (description.closeTime as Date).getTime() };
        }),
      );
      spans.sort((a, b) => a.start - b.start);
      for (let index = 1; index < spans.length; index++) {
        expect(spans[index]!.start).toBeGreaterThanOrEqual(spans[index - 1]!.end);
      }
      const scratchpad = await env.client.workflow.getHandle(agentWorkflowId(target.agentId)).query(scratchpadQuery);
      expect(scratchpad.completed_tasks).toHaveLength(3);
    });
  });

  it('exports and imports a scratchpad, and enqueues and injects between cycles', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, []);
    const source = newAgent(taskQueue);
    const copy = newAgent(taskQueue);
    await worker.runUntil(async () => {
      await updateAgent(env.client, source, injectUpdate, [
        { section: 'identity_user', content: 'Senior ML engineer' },
      ]);
      const queued = await updateAgent(env.client, source, enqueueUpdate, [{ tasks: ['one', 'two'], goals: ['ship'] }]);
      expect(queued).toEqual({ current_task: 'one', pending_actions: ['two'] });
      const exported = await env.client.workflow.getHandle(agentWorkflowId(source.agentId)).query(scratchpadQuery);
      await updateAgent(env.client, copy, importUpdate, [exported]);
      const imported = await env.client.workflow.getHandle(agentWorkflowId(copy.agentId)).query(scratchpadQuery);
      expect(imported).toEqual(exported);
      expect(imported.identity.user).toBe('Senior ML engineer');
      expect(imported.goals).toEqual(['ship']);
    });
  });

  it('refuses an enqueue, a run or an import that would pass the state size cap, changing nothing', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, []);
    const target = newAgent(taskQueue);
    const copy = newAgent(taskQueue);
    // 5,000 CJK characters each: 15,000 bytes of UTF-8, so 20 of them pass the 256 KiB cap.
    const big = Array.from({ length: 20 }, (_, n) => `${n}:${'任'.repeat(4990)}`);
    await worker.runUntil(async () => {
      await updateAgent(env.client, target, enqueueUpdate, [{ tasks: ['small'] }]);
      // The client reports "Workflow Update failed"; the validator's reason is its cause.
      const refusal = (update: Promise<unknown>) =>
        update.then(
          () => 'accepted',
          (error: { cause?: { message?: string } }) => error.cause?.message ?? String(error),
        );
      expect(await refusal(updateAgent(env.client, target, enqueueUpdate, [{ tasks: big }]))).toMatch(
        /^the scratchpad would grow to \d+ bytes \(limit 262144\): let the agent work through its queue/,
      );
      expect(await refusal(updateAgent(env.client, target, runCycleUpdate, [{ tasks: big }]))).toMatch(/limit 262144/);
      const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
      const after: Scratchpad = await handle.query(scratchpadQuery);
      expect([after.current_task, ...after.pending_actions]).toEqual(['small']);
      expect((await handle.query(statusQuery)).cycleCount).toBe(0);

      const oversize = { ...after, workspace: 'x'.repeat(300_000) };
      expect(await refusal(updateAgent(env.client, copy, importUpdate, [oversize]))).toMatch(
        /^the import is \d+ bytes as JSON \(limit 262144\)$/,
      );
      const untouched: Scratchpad = await env.client.workflow
        .getHandle(agentWorkflowId(copy.agentId))
        .query(scratchpadQuery);
      expect(untouched.workspace).not.toContain('xxxx');
    });
  });

  // Past both bounds that matter, with as few cycles as cross them: more than MAX_COMPLETED_TASKS cycles (the oldest
  // archived behind a pointer) and ten runs or more. 205 cycles took 26 s and 21 s of the dev server's CPU.
  it('continues-as-new a dozen times across 60 cycles with its memory and queries intact', async () => {
    const total = 60;
    const script = Array.from({ length: total }, (_, index) => ({
      tool: 'done',
      args: { summary: `done ${index + 1}` },
    }));
    const { worker, taskQueue } = await scriptedWorker(env, bundle, script);
    const target = newAgent(taskQueue, { continueAsNewEvery: 5 });
    const tasks = Array.from({ length: total }, (_, index) => `task ${index + 1}`);
    await worker.runUntil(async () => {
      await updateAgent(env.client, target, enqueueUpdate, [{ tasks }]);
      for (let index = 0; index < total; index++) {
        const record = await updateAgent(env.client, target, runCycleUpdate, [{}]);
        expect(record.cycleId).toBe(`agent/${target.agentId}/cycle/${index + 1}`);
      }
      const handle = env.client.workflow.getHandle(agentWorkflowId(target.agentId));
      const status = await handle.query(statusQuery);
      expect(status.cycleCount).toBe(total);
      expect(status.runs).toBeGreaterThanOrEqual(10);
      const scratchpad: Scratchpad = await handle.query(scratchpadQuery);
      // Older completed tasks are archived behind a pointer, so the state stays bounded over any number of cycles.
      expect(scratchpad.completed_tasks.length).toBeLessThanOrEqual(MAX_COMPLETED_TASKS);
      expect(scratchpad.completed_tasks[0]).toMatch(/^\[ARCHIVED \d+ older completed tasks: scratchpad_read/);
      expect(scratchpad.completed_tasks.at(-1)).toEqual({ task: `task ${total}`, summary: `done ${total}` });
      expect(scratchpad.current_task).toBeNull();
      const cycles: CycleRecord[] = await handle.query(cyclesQuery);
      expect(cycles.at(-1)?.cycleId).toBe(`agent/${target.agentId}/cycle/${total}`);
      const directives: DirectiveRecord[] = await handle.query(directivesQuery);
      expect(directives).toEqual([]);
    });
  }, 240_000);
});
