import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { workerSinks } from '../../src/workers/create-worker';
import YAML from 'yaml';
import { updateAgent } from '../../src/clients/agents';
import { runCycleUpdate } from '../../src/common/messages/agent';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import { type Scratchpad, defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { snapshotYaml, writeSnapshots } from '../../src/clients/snapshots';
import { agentIdKey } from '../../src/common/search-attributes';
import { afterQuery, beforeQuery, currentQuery, traceQuery } from '../../src/common/messages/cycle';
import { waitFor } from '../helpers/temporal';
import { scriptedWorker, useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

let agentCounter = 0;
function agentId(): string {
  return `test-agent-${process.pid}-${Date.now()}-${agentCounter++}`;
}

function startInput(agent: string, before: Scratchpad, extra: Partial<CycleInput> = {}): CycleInput {
  return { agentId: agent, before, ...extra } as CycleInput;
}

async function runCycle(taskQueue: string, input: CycleInput): Promise<CycleResult> {
  return env.client.workflow.execute('agentCycle', {
    taskQueue,
    workflowId: `agent/${input.agentId}/cycle/1`,
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: input.agentId }]),
  });
}

const seeded = enqueueTasks(defaultScratchpad('Demonstrate the cycle'), [
  'Run the echo tool with a hello message',
  'Write hello.txt',
]);

describe('agentCycle on the dev server', () => {
  it('runs tools, updates the scratchpad, and completes on done', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [
      {
        tool: 'update_scratchpad',
        args: { understanding_known: 'APPEND: - (user) wants a greeting', trajectory_now: 'Echoing' },
      },
      { tool: 'echo', args: { message: 'Hello!' } },
      { tool: 'fs_write', args: { path: 'hello.txt', content: 'hi' } },
      { tool: 'done', args: { summary: 'Echoed hello' } },
    ]);
    const result = await worker.runUntil(runCycle(taskQueue, startInput(agentId(), seeded)));

    expect(result.outcome).toBe('completed');
    expect(result.iterations).toBe(4);
    expect(result.after.understanding.known).toBe('- (user) wants a greeting');
    expect(result.after.trajectory.now).toBe('Echoing');
    expect(result.after.notes).toMatch(/^\[TOOL\] echo\(/);
    expect(result.after.notes).toContain('[TOOL] echo({"message":"Hello!"}) → ECHO: Hello!');
    expect(result.after.notes).toContain('[TOOL] fs_write({"path":"hello.txt","content":"hi"}) →');
    expect(result.after.notes).toMatch(/\[COMPLETED\] Echoed hello$/);
    expect(result.after.completed_tasks).toEqual([
      { task: 'Run the echo tool with a hello message', summary: 'Echoed hello' },
    ]);
    expect(result.after.current_task).toBe('Write hello.txt');
    expect(result.after.pending_actions).toEqual([]);
    expect(result.after.last_updated).toBeNull();
    expect(result.usage.inputTokens).toBeGreaterThan(0);

    // Each prompt is built from the scratchpad alone: no earlier model turns, the latest tool result present.
    expect(model.requests).toHaveLength(4);
    for (const request of model.requests) {
      expect(request.system).toBe('cycle');
      expect(request.messages).toHaveLength(1);
      expect(request.toolChoice).toBe('any');
    }
    expect(model.requests[2]?.messages[0]?.content).toContain('ECHO: Hello!');
    expect(model.requests[0]?.messages[0]?.content).toContain('## IDENTITY');
  });

  it('stops at max_iterations with the task unfinished', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'echo', args: { message: '1' } },
      { tool: 'echo', args: { message: '2' } },
      { tool: 'echo', args: { message: '3' } },
    ]);
    const result = await worker.runUntil(runCycle(taskQueue, startInput(agentId(), seeded, { maxIterations: 3 })));
    expect(result.outcome).toBe('max_iterations');
    expect(result.iterations).toBe(3);
    expect(result.after.current_task).toBe(seeded.current_task);
    expect(result.after.notes.match(/\[TOOL\] echo/g)).toHaveLength(3);
  });

  it('notes a parse error and recovers on the next iteration', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [
      { text: 'I think I will just say hello.' },
      // The corrective retry of the forced call misses again, so the iteration notes the parse error.
      { text: 'I think I will just say hello.' },
      { text: '```json\n{"tool": "done", "args": {"summary": "recovered"}}\n```' },
    ]);
    const result = await worker.runUntil(runCycle(taskQueue, startInput(agentId(), seeded)));
    expect(result.outcome).toBe('completed');
    expect(result.after.notes).toContain('[PARSE ERROR] no JSON object in response: I think I will just say hello.');
    expect(result.after.notes).toContain('[COMPLETED] recovered');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('Your last reply did not call one of the tools.');
  });

  it('falls back to the before-state with a failure note when the model fails for good', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'echo', args: { message: 'work that will be discarded' } },
      { error: { type: 'ModelError.Auth', message: '401 invalid x-api-key', nonRetryable: true } },
    ]);
    const agent = agentId();
    const result = await worker.runUntil(runCycle(taskQueue, startInput(agent, seeded)));
    expect(result.outcome).toBe('failed');
    expect(result.after).toEqual({
      ...seeded,
      notes: `Cycle agent/${agent}/cycle/1 failed: ModelError.Auth: 401 invalid x-api-key`,
    });
  });

  it('fails the cycle, not the workflow, when retries are exhausted', async () => {
    const overloaded = { error: { type: 'ModelError.Overloaded', message: '529 overloaded', nextRetryDelayMs: 10 } };
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, [overloaded, overloaded]);
    const result = await worker.runUntil(runCycle(taskQueue, startInput(agentId(), seeded, { maxAttempts: 2 })));
    expect(result.outcome).toBe('failed');
    expect(result.error).toBe('ModelError.Overloaded: 529 overloaded');
    expect(model.requests).toHaveLength(2);
  });

  it('answers the current query mid-cycle and before / after / trace at the end', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'echo', args: { message: 'first' } },
      { tool: 'done', args: { summary: 'slow finish' }, delayMs: 3000 },
    ]);
    const agent = agentId();
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('agentCycle', {
        taskQueue,
        workflowId: `agent/${agent}/cycle/1`,
        args: [startInput(agent, seeded)],
      });
      const current: Scratchpad = await waitFor(
        () => handle.query(currentQuery),
        (state) => state.notes.includes('ECHO: first'),
        { timeoutMs: 5000 },
      );
      expect(current?.notes).toContain('[TOOL] echo({"message":"first"}) → ECHO: first');
      expect(current?.notes).not.toContain('[COMPLETED]');
      expect(await handle.query(afterQuery)).toBeNull();
      const result = await handle.result();
      expect(await handle.query(beforeQuery)).toEqual(seeded);
      expect(await handle.query(afterQuery)).toEqual(result.after);
      const trace = await handle.query(traceQuery);
      expect(trace.map((entry) => entry.dispatch)).toEqual(['tool', 'done']);
      expect(trace[0]?.observation).toBe('ECHO: first');
      expect(trace[1]?.usage.inputTokens).toBeGreaterThan(0);
    });
  });

  it('survives a worker that stops mid-cycle: a new worker resumes from history, nothing done twice', async () => {
    const first = await scriptedWorker(env, bundle, [
      { tool: 'echo', args: { message: 'before the crash' } },
      { tool: 'done', args: { summary: 'never delivered' }, delayMs: 10_000 },
    ]);
    const agent = agentId();
    const workflowId = `agent/${agent}/cycle/1`;
    const handle = await env.client.workflow.start('agentCycle', {
      taskQueue: first.taskQueue,
      workflowId,
      args: [startInput(agent, seeded, { maxAttempts: 3 })],
    });
    await first.worker.runUntil(() =>
      waitFor(() => first.model.requests.length >= 2, { timeoutMs: 5000, intervalMs: 50 }),
    );
    expect(first.model.requests).toHaveLength(2);

    // A second process: its own model connection, the same task queue.
    const secondModel = new ScriptedProvider([{ tool: 'done', args: { summary: 'finished after restart' } }]);
    const resumed = await Worker.create({
      ...TEST_WORKER_THREAD,
      connection: env.nativeConnection,
      taskQueue: first.taskQueue,
      ...WORKER_LIVENESS_OPTIONS,
      workflowBundle: bundle,
      activities: createActivities({
        resolveModel: createModelResolver({
          defaultSpec: 'scripted:test',
          providers: { 'scripted:test': secondModel },
        }),
        tools: first.tools,
      }),
      sinks: workerSinks(),
    });
    const result = await resumed.runUntil(handle.result());
    expect(result.outcome).toBe('completed');
    expect(result.after.notes.match(/\[TOOL\] echo/g)).toHaveLength(1);
    expect(result.after.notes).toContain('[COMPLETED] finished after restart');
    expect(secondModel.requests).toHaveLength(1);
  });

  it('continues from the latest after-state and writes snapshots equal to the queries', async () => {
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'echo', args: { message: 'cycle one' } },
      { tool: 'done', args: { summary: 'first done' } },
      { tool: 'update_scratchpad', args: { workspace: 'second cycle draft' } },
      { tool: 'done', args: { summary: 'second done' } },
    ]);
    const agent = agentId();
    const out = await fs.mkdtemp(path.join(os.tmpdir(), 'snapshots-'));
    await worker.runUntil(async () => {
      // Through the agent workflow, as `scratchpad cycle` runs them.
      const target = { agentId: agent, taskQueue };
      const firstRecord = await updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['task A', 'task B'] }]);
      const secondRecord = await updateAgent(env.client, target, runCycleUpdate, [{}]);
      expect(secondRecord.cycleId).toBe(`agent/${agent}/cycle/2`);
      const first = env.client.workflow.getHandle(firstRecord.cycleId);
      const second = env.client.workflow.getHandle(secondRecord.cycleId);
      const firstResult: CycleResult = await first.result();
      const secondResult: CycleResult = await second.result();

      const secondBefore = await second.query(beforeQuery);
      expect({ ...secondBefore, last_updated: null }).toEqual(firstResult.after);
      expect(secondBefore.last_updated).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(secondResult.after.current_task).toBeNull();
      expect(secondResult.after.completed_tasks).toEqual([
        { task: 'task A', summary: 'first done' },
        { task: 'task B', summary: 'second done' },
      ]);

      const files = (await writeSnapshots(env.client, agent, out)).map((file) => path.basename(file));
      expect(files).toHaveLength(5);
      expect(files.at(-1)).toBe('active.yaml');
      for (const [index, handle] of [first, second].entries()) {
        const prefix = `${String(index + 1).padStart(4, '0')}_`;
        const beforeFile = files.find((file) => file.startsWith(prefix) && file.endsWith('_before.yaml')) as string;
        const afterFile = files.find((file) => file.startsWith(prefix) && file.endsWith('_after.yaml')) as string;
        expect(await fs.readFile(path.join(out, beforeFile), 'utf8')).toBe(
          snapshotYaml(await handle.query(beforeQuery)),
        );
        expect(await fs.readFile(path.join(out, afterFile), 'utf8')).toBe(
          snapshotYaml((await handle.query(afterQuery))!),
        );
      }
      const active = YAML.parse(await fs.readFile(path.join(out, 'active.yaml'), 'utf8')) as Scratchpad;
      // The after-state keeps last_updated as it was; the active state is stamped when adopted (seed 000).
      expect({ ...active, last_updated: secondBefore.last_updated }).toEqual(secondResult.after);
      expect(secondResult.after.last_updated).toBe(secondBefore.last_updated);
      expect(Date.parse(active.last_updated as string)).toBeGreaterThanOrEqual(
        Date.parse(secondBefore.last_updated as string),
      );
      expect(Object.keys(active).slice(0, 6)).toEqual([
        'goals',
        'current_task',
        'pending_actions',
        'completed_tasks',
        'notes',
        'last_updated',
      ]);
    });
  });
});
