import * as fs from 'node:fs';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { ToolRegistry } from '../../src/activities/tools/registry';
import type { ToolOptions } from '../../src/activities/tools/types';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { approvalsQuery, decideUpdate, statusQuery, wakeSignal } from '../../src/common/messages/agent';
import { cycleApprovalsQuery, cycleDecideUpdate, traceQuery } from '../../src/common/messages/cycle';
import { agentIdKey } from '../../src/common/search-attributes';
import { stagedProgressQuery } from '../../src/common/messages/staged';
import { startStaged } from '../../src/clients/staged-runs';
import type { AgentSettings } from '../../src/core/agent/agent';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import type { Decision, PendingApproval } from '../../src/core/tools/approval';
import { workerSinks } from '../../src/workers/create-worker';
import { sandboxOptions, useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';
import { uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

jest.setTimeout(180_000);

/** Stateless answers by iteration, so a worker started mid-cycle answers as its predecessor would. */
function script(first: ScriptEntry, second: ScriptEntry = { tool: 'done', args: { summary: 'finished' } }) {
  return [
    { match: ['Iteration 1 of'], ...first },
    { match: ['Iteration 2 of'], ...second },
    { match: ['Iteration 3 of'], tool: 'done', args: { summary: 'finished' } },
  ] as ScriptEntry[];
}

interface Running {
  model: ScriptedProvider;
  stop(): Promise<void>;
}

/** A worker on `taskQueue` whose `shell` may run `touch` in `tools.sandboxRoot`, under bubblewrap. */
async function startWorker(
  taskQueue: string,
  tools: ToolOptions,
  entries: ScriptEntry[],
  toolRegistry?: ToolRegistry,
): Promise<Running> {
  const model = new ScriptedProvider(entries, 'approvals');
  const resolveModel = createModelResolver({ defaultSpec: 'scripted:test', providers: { 'scripted:test': model } });
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools, observations: new MemoryObservationStore(), toolRegistry }),
    sinks: workerSinks(),
  });
  const run = worker.run();
  return {
    model,
    stop: async () => {
      worker.shutdown();
      await run;
    },
  };
}

function touchTools(): ToolOptions {
  return { ...sandboxOptions(), shellAllow: ['echo', 'ls', 'touch'] };
}

function newId(name: string): string {
  return uniqueId(`approvals-${name}`);
}

/** Starts cycle 1 of a fresh agent id directly (no agent workflow): research workers and stages are decided so. */
function startCycle(taskQueue: string, input: Partial<CycleInput> = {}) {
  const agentId = newId('cycle');
  const before = enqueueTasks(defaultScratchpad('Look after the sandbox'), ['make a file']);
  return env.client.workflow.start('agentCycle', {
    taskQueue,
    workflowId: cycleWorkflowId(agentId, 1),
    args: [{ agentId, before, ...input } as CycleInput],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
}

async function startAgent(taskQueue: string, settings: Partial<AgentSettings>) {
  const agentId = newId('agent');
  const handle = await env.client.workflow.start('agent', {
    taskQueue,
    workflowId: agentWorkflowId(agentId),
    args: [{ agentId, settings }],
  });
  await handle.signal(wakeSignal, { tasks: ['make a file'] });
  return { agentId, handle, cycle: env.client.workflow.getHandle(cycleWorkflowId(agentId, 1)) };
}

async function activities(workflowId: string, name: string) {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === name);
}

/** Why an update was refused or failed: the cause the server carries (a validator's or the handler's message). */
async function refusalOf(update: Promise<unknown>): Promise<string> {
  try {
    await update;
  } catch (error) {
    const { cause, message } = error as Error & { cause?: Error };
    return cause?.message ?? message;
  }
  throw new Error('the update was not refused');
}

/** The text of a request's messages, whether each content is a string or a list of text parts. */
function sentToModel(model: ScriptedProvider, index: number): string {
  const text = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: unknown }) => String(part.text ?? '')).join('\n')
        : JSON.stringify(content);
  return (model.requests[index]?.messages ?? []).map((message) => text(message.content)).join('\n');
}

describe('durable approvals on the dev server', () => {
  it('a shell call under ask waits, survives a new worker, and runs exactly once when approved through the agent', async () => {
    const taskQueue = uniqueTaskQueue('approvals');
    const tools = touchTools();
    const entries = script({ tool: 'shell', args: { command: 'touch approved.txt' } });
    const first = await startWorker(taskQueue, tools, entries);
    const { agentId, handle, cycle } = await startAgent(taskQueue, { approve: ['shell'] });
    let second: Running | undefined;
    try {
      const [pending] = await waitFor(
        () => handle.query(approvalsQuery),
        (calls) => calls.length === 1,
      );
      expect(pending).toMatchObject({
        callId: '1.1',
        cycleId: cycle.workflowId,
        tool: 'shell',
        args: '{"command":"touch approved.txt"}',
        iteration: 1,
      });
      expect(Date.parse(pending!.expiresAt) - Date.parse(pending!.requestedAt)).toBe(24 * 60 * 60 * 1000);
      expect((await handle.query(statusQuery)).approvals).toEqual([pending]);
      expect(await cycle.query(cycleApprovalsQuery)).toEqual([pending]);
      // Found through visibility, as `approvals` and the Web UI find it: no worker needed.
      await waitFor(
        async () => {
          const found: string[] = [];
          const query = `AwaitingApproval = true AND AgentId = '${agentId}'`;
          for await (const execution of env.client.workflow.list({ query })) found.push(execution.workflowId);
          return found.sort();
        },
        (found) => found.length === 2,
      );
      expect((await cycle.describe()).memo?.approvals).toEqual([pending]);
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'approved.txt'))).toBe(false);

      await first.stop();
      second = await startWorker(taskQueue, tools, entries);
      const decision = await handle.executeUpdate(decideUpdate, { args: [{ decision: 'approve', by: 'ada' }] });
      expect(decision).toMatchObject({ callId: '1.1', tool: 'shell', decision: 'approve', by: 'ada' });

      const result = (await cycle.result()) as CycleResult;
      expect(result.outcome).toBe('completed');
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'approved.txt'))).toBe(true);
      const runs = await activities(cycle.workflowId, 'runTool');
      expect(runs).toHaveLength(1);
      const events = (await cycle.fetchHistory()).events ?? [];
      const attempts = events.flatMap((event) => event.activityTaskStartedEventAttributes?.attempt ?? []);
      expect(attempts.every((attempt) => attempt === 1)).toBe(true);
      expect(result.decisions).toEqual([decision]);
      const trace = await cycle.query(traceQuery);
      expect(trace.find((entry) => entry.action?.tool === 'shell')?.approvals).toEqual([decision]);
      await waitFor(
        () => handle.query(statusQuery),
        (status) => status.approvals === undefined && status.cycleCount === 1 && status.running === null,
      );
      expect(await handle.query(approvalsQuery)).toEqual([]);
      // A decision on a call that no longer waits is refused, naming it.
      expect(await refusalOf(handle.executeUpdate(decideUpdate, { args: [{ callId: '1.1', decision: 'deny' }] }))).toBe(
        `no call "1.1" on agent ${agentId}`,
      );
    } finally {
      await handle.terminate().catch(() => undefined);
      await (second ?? first).stop();
    }
  });

  it("a denied call's reason reaches the model's next prompt; decided directly on the cycle, nothing runs", async () => {
    const taskQueue = uniqueTaskQueue('approvals-deny');
    const tools = touchTools();
    const worker = await startWorker(
      taskQueue,
      tools,
      script({ tool: 'shell', args: { command: 'touch denied.txt' } }),
    );
    try {
      const cycle = await startCycle(taskQueue, { approve: ['sh*'] });
      await waitFor(
        () => cycle.query(cycleApprovalsQuery),
        (calls) => calls.length === 1,
      );
      expect(
        await refusalOf(cycle.executeUpdate(cycleDecideUpdate, { args: [{ callId: '7.7', decision: 'approve' }] })),
      ).toBe(`no call "7.7" on cycle ${cycle.workflowId} (waiting: 1.1)`);
      const decision = await cycle.executeUpdate(cycleDecideUpdate, {
        args: [{ decision: 'deny', reason: 'not on a Friday', by: 'reviewer' }],
      });
      expect(decision).toMatchObject({ callId: '1.1', decision: 'deny', by: 'reviewer', reason: 'not on a Friday' });
      const result = await cycle.result();
      expect(result.outcome).toBe('completed');
      expect(sentToModel(worker.model, 1)).toContain('ERROR: denied by reviewer: not on a Friday');
      expect(await activities(cycle.workflowId, 'runTool')).toHaveLength(0);
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'denied.txt'))).toBe(false);
    } finally {
      await worker.stop();
    }
  });

  it("an edited call runs with the edited arguments (the worker's policy asks); an invalid edit is refused", async () => {
    const taskQueue = uniqueTaskQueue('approvals-edit');
    const tools = touchTools();
    const registry = new ToolRegistry([], undefined, undefined, ['shell']);
    const entries = script({ tool: 'shell', args: { command: 'touch original.txt' } });
    const worker = await startWorker(taskQueue, tools, entries, registry);
    try {
      const cycle = await startCycle(taskQueue, { tools: ['shell'] });
      await waitFor(
        () => cycle.query(cycleApprovalsQuery),
        (calls) => calls.length === 1,
      );
      expect(
        await refusalOf(
          cycle.executeUpdate(cycleDecideUpdate, { args: [{ decision: 'approve', args: { command: 42 } }] }),
        ),
      ).toMatch(/^not applied: invalid arguments for shell:\n[\s\S]*expected string[\s\S]*at command/);
      expect(
        await refusalOf(
          cycle.executeUpdate(cycleDecideUpdate, { args: [{ decision: 'deny', args: { command: 'ls' } }] }),
        ),
      ).toContain('only an approval may carry edited arguments');
      expect(await cycle.query(cycleApprovalsQuery)).toHaveLength(1);
      const decision = await cycle.executeUpdate(cycleDecideUpdate, {
        args: [{ decision: 'approve', args: { command: 'touch edited.txt' }, by: 'grace' }],
      });
      expect(decision.editedArgs).toBe('{"command":"touch edited.txt"}');
      const result = await cycle.result();
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'edited.txt'))).toBe(true);
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'original.txt'))).toBe(false);
      expect(result.after.notes).toContain('the arguments were changed by grace before it ran');
      expect(sentToModel(worker.model, 1)).toContain('it ran with {\\"command\\":\\"touch edited.txt\\"}');
    } finally {
      await worker.stop();
    }
  });

  it('a wait that times out is a denial the model sees', async () => {
    const taskQueue = uniqueTaskQueue('approvals-timeout');
    const tools = touchTools();
    const worker = await startWorker(taskQueue, tools, script({ tool: 'shell', args: { command: 'touch late.txt' } }));
    try {
      const cycle = await startCycle(taskQueue, { approve: ['shell'], approvalTimeoutMs: 1500 });
      const result = await cycle.result();
      expect(result.decisions).toEqual([
        expect.objectContaining({
          decision: 'timeout',
          by: 'timeout',
          reason: 'timed out after 1s500ms without a decision',
        }),
      ]);
      expect(sentToModel(worker.model, 1)).toContain('ERROR: denied by timeout: timed out after 1s500ms');
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'late.txt'))).toBe(false);
      expect(await activities(cycle.workflowId, 'runTool')).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });

  it('of two concurrent decisions on one call exactly one applies; the other is refused, saying why', async () => {
    const taskQueue = uniqueTaskQueue('approvals-race');
    const tools = touchTools();
    const worker = await startWorker(taskQueue, tools, [
      ...script(
        { tool: 'shell', args: { command: 'touch first.txt' } },
        { tool: 'shell', args: { command: 'touch second.txt' } },
      ),
    ]);
    const { handle, cycle } = await startAgent(taskQueue, { approve: ['shell'] });
    try {
      const race = async (callId: string, deciders: (() => Promise<unknown>)[]) => {
        await waitFor(
          () => handle.query(approvalsQuery),
          (calls: PendingApproval[]) => calls.some((call) => call.callId === callId),
        );
        const outcomes = await Promise.allSettled(deciders.map((decide) => refusalOf(decide())));
        // Each settles with the refusal, or rejects because its decision applied.
        const refusals = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
        expect(refusals).toEqual([
          expect.stringMatching(
            new RegExp(
              `^call ${callId.replace('.', '\\.')} (is already being decided by|was already decided|was decided otherwise)`,
            ),
          ),
        ]);
      };
      // Both through the agent.
      await race('1.1', [
        () => handle.executeUpdate(decideUpdate, { args: [{ callId: '1.1', decision: 'approve', by: 'ada' }] }),
        () => handle.executeUpdate(decideUpdate, { args: [{ callId: '1.1', decision: 'deny', by: 'bob' }] }),
      ]);
      // One through the agent, one directly on the cycle.
      await race('2.1', [
        () => handle.executeUpdate(decideUpdate, { args: [{ callId: '2.1', decision: 'deny', by: 'ada' }] }),
        () => cycle.executeUpdate(cycleDecideUpdate, { args: [{ callId: '2.1', decision: 'approve', by: 'bob' }] }),
      ]);
      const result = await cycle.result();
      expect(result.decisions).toHaveLength(2);
      const files = ['first.txt', 'second.txt'].filter((file) => fs.existsSync(path.join(tools.sandboxRoot, file)));
      const approved = (result.decisions ?? []).filter((decision: Decision) => decision.decision === 'approve').length;
      expect(files).toHaveLength(approved);
      expect(await activities(cycle.workflowId, 'runTool')).toHaveLength(approved);
    } finally {
      await handle.terminate().catch(() => undefined);
      await worker.stop();
    }
  });

  it("a staged run's stage follows the worker's policy, and the run's progress says which stage waits", async () => {
    const taskQueue = uniqueTaskQueue('approvals-staged');
    const tools = touchTools();
    const registry = new ToolRegistry([], undefined, undefined, ['fs_write']);
    const worker = await startWorker(
      taskQueue,
      tools,
      [
        { tool: 'fs_write', args: { path: 'sum.js', content: 'exports.sum = (a, b) => a + b;\n' } },
        { tool: 'done', args: { summary: 'stage complete' } },
      ],
      registry,
    );
    try {
      const agentId = newId('staged');
      const run = await startStaged(env.client, taskQueue, { agentId, task: 'Write a sum module', staged: false });
      const progress = await waitFor(
        () => run.query(stagedProgressQuery),
        (value) => (value.approvals ?? []).length === 1,
      );
      const stageCycle = `${run.workflowId}/stage-1`;
      expect(progress.approvals?.[0]).toMatchObject({
        callId: '1.1',
        cycleId: stageCycle,
        tool: 'fs_write',
        context: `stage stage-1 of ${run.workflowId}`,
      });
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'sum.js'))).toBe(false);
      const stage = env.client.workflow.getHandle(stageCycle);
      await stage.executeUpdate(cycleDecideUpdate, { args: [{ decision: 'approve', by: 'ada' }] });
      const result = await run.result();
      expect(result.stages.map((record) => record.touchedPaths)).toEqual([['sum.js']]);
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'sum.js'))).toBe(true);
      expect((await run.query(stagedProgressQuery)).approvals).toBeUndefined();
    } finally {
      await worker.stop();
    }
  });

  it("a sub-agent's call asks as its agent would, and the agent sees and decides it through its cycle", async () => {
    const taskQueue = uniqueTaskQueue('approvals-subagent');
    const tools = touchTools();
    const worker = await startWorker(taskQueue, tools, [
      { match: ['make a file', 'Iteration 1 of'], tool: 'spawn_subagent', args: { task: 'Touch the sub file' } },
      { match: ['Touch the sub file', 'Iteration 1 of'], tool: 'shell', args: { command: 'touch sub.txt' } },
      { match: ['Iteration 2 of'], tool: 'done', args: { summary: 'finished' } },
    ]);
    const { handle, cycle } = await startAgent(taskQueue, { approve: ['shell'] });
    try {
      const [pending] = await waitFor(
        () => handle.query(approvalsQuery),
        (calls) => calls.length === 1,
      );
      expect(pending).toMatchObject({ callId: 'sub1-1.1', cycleId: `${cycle.workflowId}/sub/1`, tool: 'shell' });
      const decision = await handle.executeUpdate(decideUpdate, { args: [{ decision: 'approve', by: 'ada' }] });
      expect(decision).toMatchObject({ callId: 'sub1-1.1', decision: 'approve' });
      expect((await cycle.result()).outcome).toBe('completed');
      expect(fs.existsSync(path.join(tools.sandboxRoot, 'sub.txt'))).toBe(true);
      const child = await env.client.workflow.getHandle(`${cycle.workflowId}/sub/1`).result();
      expect(child.decisions).toEqual([decision]);
    } finally {
      await handle.terminate().catch(() => undefined);
      await worker.stop();
    }
  });
});
