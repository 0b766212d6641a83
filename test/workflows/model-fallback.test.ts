import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { updateAgent } from '../../src/clients/agents';
import { startStaged } from '../../src/clients/staged-runs';
import { agentWorkflowId } from '../../src/common/ids';
import { cyclesQuery, sendUpdate, statusQuery } from '../../src/common/messages/agent';
import { traceQuery } from '../../src/common/messages/cycle';
import { loadConfig, resolveModelSpec } from '../../src/config';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { createWorker, workerSinks } from '../../src/workers/create-worker';
import { uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { sandboxOptions, startAgentCycle, useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const NOT_FOUND: ScriptEntry = {
  error: { type: 'ModelError.NotFound', message: 'no model "first" here', nonRetryable: true },
};
const DONE: ScriptEntry = { tool: 'done', args: { summary: 'ok' } };

/** Scripted models named `scripted:<name>`, each replaying its own script. */
function scriptedModels(scripts: Record<string, ScriptEntry[]>): Record<string, ScriptedProvider> {
  return Object.fromEntries(
    Object.entries(scripts).map(([name, script]) => [`scripted:${name}`, new ScriptedProvider(script, name)]),
  );
}

/** A worker on a fresh queue whose default model is `defaultSpec` (a list, perhaps), served by `models`. */
async function fallbackWorker(defaultSpec: string, models: Record<string, ScriptedProvider>) {
  const taskQueue = uniqueTaskQueue('model-fallback');
  const resolveModel = createModelResolver({ defaultSpec, providers: models });
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools: sandboxOptions(), observations: new MemoryObservationStore() }),
    sinks: workerSinks(),
  });
  return { worker, taskQueue };
}

function newAgentId(): string {
  return uniqueId('model-fallback');
}

function startCycle(taskQueue: string, input: Partial<CycleInput> = {}) {
  const before = enqueueTasks(defaultScratchpad('Test'), ['Say done']);
  return startAgentCycle(env, taskQueue, { agentId: newAgentId(), before, ...input } as CycleInput);
}

describe('model fallback: a call that fails for good on one model goes to the next of its list', () => {
  it('SCRATCHPAD_MODEL=a,b: the first is not found, the second answers every call of the cycle, recorded as such', async () => {
    const models = scriptedModels({
      first: [NOT_FOUND],
      second: [{ tool: 'update_scratchpad', args: { trajectory_now: 'Saying done' } }, DONE],
    });
    const taskQueue = uniqueTaskQueue('model-fallback-env');
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'model-fallback-'));
    const config = loadConfig({
      SCRATCHPAD_HOME: home,
      SCRATCHPAD_TASK_QUEUE: taskQueue,
      SCRATCHPAD_MODEL: 'scripted:first, scripted:second',
    });
    const worker = await createWorker({
      config: { ...config, TEMPORAL_NAMESPACE: env.namespace ?? 'default' },
      modelSpec: resolveModelSpec(config),
      providers: models,
      connection: env.nativeConnection,
      observations: new MemoryObservationStore(),
      workerOptions: {
        ...TEST_WORKER_THREAD,
        workflowBundle: bundle,
        workflowsPath: undefined,
        bundlerOptions: undefined,
      },
      log: () => undefined,
    });

    const { result, trace } = await worker.runUntil(async () => {
      const handle = await startCycle(taskQueue);
      const result: CycleResult = await handle.result();
      return { result, trace: await handle.query(traceQuery) };
    });

    expect(result.outcome).toBe('completed');
    expect(result.fallbackModel).toBe('scripted:second');
    expect(Object.keys(result.usageByModel ?? {})).toEqual(['scripted:second']);
    expect(trace.map((entry) => [entry.dispatch, entry.model])).toEqual([
      ['update', 'scripted:second'],
      ['done', 'scripted:second'],
    ]);
    expect(result.after.notes).toContain(
      '[MODEL] scripted:first failed for good (ModelError.NotFound: no model "first" here): asking the next model of its list',
    );
    // Once it failed for good, the cycle's later calls went straight to the second.
    expect(models['scripted:first']?.requests).toHaveLength(1);
    expect(models['scripted:second']?.requests).toHaveLength(2);
  });

  it('fails the cycle naming every model of the list and its failure when none answers, retries spent first', async () => {
    const busy: ScriptEntry = { error: { type: 'ModelError.Overloaded', message: 'busy' } };
    const models = scriptedModels({ first: [NOT_FOUND], second: [busy, busy] });
    const { worker, taskQueue } = await fallbackWorker('scripted:first,scripted:second', models);

    const result: CycleResult = await worker.runUntil(async () =>
      (await startCycle(taskQueue, { maxAttempts: 2 })).result(),
    );

    expect(result.outcome).toBe('failed');
    expect(result.error).toBe(
      'ModelError.AllFailed: every model of the list failed: scripted:first (ModelError.NotFound: no model "first" ' +
        'here); scripted:second (ModelError.Overloaded: busy)',
    );
    expect(result.after.notes).toBe(`Cycle ${result.cycleId} failed: ${result.error}`);
    expect(models['scripted:second']?.requests).toHaveLength(2);
    expect(result.fallbackModel).toBeUndefined();
  });

  it('goes to the next model when context recovery could not make the prompt fit the first', async () => {
    const tooLong: ScriptEntry = {
      error: { type: 'ModelError.ContextExceeded', message: 'the prompt does not fit', nonRetryable: true },
    };
    const models = scriptedModels({ first: [tooLong, tooLong], second: [DONE] });
    const { worker, taskQueue } = await fallbackWorker('scripted:first,scripted:second', models);

    const result: CycleResult = await worker.runUntil(async () => (await startCycle(taskQueue)).result());

    expect(result.outcome).toBe('completed');
    expect(result.fallbackModel).toBe('scripted:second');
    expect(models['scripted:first']?.requests).toHaveLength(2);
    expect(result.after.notes).toContain('[CONTEXT] the prompt did not fit');
    expect(result.after.notes).toContain('[MODEL] scripted:first failed for good (ModelError.ContextExceeded');
  });

  it('does not fall back on a request the next model would refuse too, nor on a list naming a refused model', async () => {
    const badRequest: ScriptEntry = {
      error: { type: 'ModelError.BadRequest', message: 'malformed request', nonRetryable: true },
    };
    const models = scriptedModels({ first: [badRequest], second: [DONE] });
    const { worker, taskQueue } = await fallbackWorker('scripted:first,scripted:second', models);

    const [ours, refused] = await worker.runUntil(async () => {
      const ours: CycleResult = await (await startCycle(taskQueue)).result();
      const refused: CycleResult = await (
        await startCycle(taskQueue, { model: 'scripted:second,scripted:elsewhere' })
      ).result();
      return [ours, refused];
    });

    expect(ours.outcome).toBe('failed');
    expect(ours.error).toBe('ModelError.BadRequest: malformed request');
    expect(refused.outcome).toBe('failed');
    expect(refused.error).toMatch(/^ModelError\.NotAllowed: model "scripted:elsewhere" is not allowed on this worker/);
    expect(models['scripted:second']?.requests).toHaveLength(0);
  });

  it("a staged run's plan-only turn falls back too, and says so among the run's notices", async () => {
    const models = scriptedModels({
      first: [NOT_FOUND],
      second: [
        { tool: 'plan', args: { stages: ['write one.txt'] } },
        { tool: 'fs_write', args: { path: 'one.txt', content: '1' } },
        DONE,
      ],
    });
    const { worker, taskQueue } = await fallbackWorker('scripted:first,scripted:second', models);

    const result = await worker.runUntil(async () =>
      (
        await startStaged(env.client, taskQueue, { agentId: newAgentId(), task: 'Write one.txt', staged: true })
      ).result(),
    );

    expect(result).toMatchObject({ staged: true, plan: ['write one.txt'] });
    expect(result.stages.map((stage) => stage.touchedPaths)).toEqual([['one.txt']]);
    expect(result.notices).toContain(
      '[MODEL] scripted:first failed for good (ModelError.NotFound: no model "first" here): asking the next model of its list',
    );
    // The stage is a cycle of its own: it tried the list from the top.
    expect(models['scripted:first']?.requests).toHaveLength(2);
  });

  it("an agent's model setting is a list; its status shows the fallback that answered the last call", async () => {
    const models = scriptedModels({
      other: [],
      first: [NOT_FOUND],
      second: [{ text: 'Hello.' }, { tool: 'update_scratchpad', args: { trajectory_now: 'Greeted' } }],
    });
    const { worker, taskQueue } = await fallbackWorker('scripted:other', models);
    const agentId = newAgentId();
    const target = { agentId, taskQueue, settings: { model: 'scripted:first,scripted:second' } };

    const { reply, status, cycles } = await worker.runUntil(async () => {
      const reply = await updateAgent(env.client, target, sendUpdate, [{ message: 'Hi.' }]);
      await env.client.workflow.getHandle(reply.cycleId).result();
      const handle = env.client.workflow.getHandle(agentWorkflowId(agentId));
      await waitFor(async () => (await handle.query(cyclesQuery)).length > 0, { timeoutMs: 10_000 });
      return { reply, status: await handle.query(statusQuery), cycles: await handle.query(cyclesQuery) };
    });

    expect(reply.reply).toBe('Hello.');
    expect(status.fallbackModel).toBe('scripted:second');
    expect(cycles.map((cycle) => [cycle.outcome, cycle.fallbackModel])).toEqual([['completed', 'scripted:second']]);
    expect(models['scripted:first']?.requests).toHaveLength(1);
    expect(models['scripted:other']?.requests).toHaveLength(0);
  });
});
