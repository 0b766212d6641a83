import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { latestRunNotes, startStaged } from '../../src/clients/staged-runs';
import { updateAgent } from '../../src/clients/agents';
import { visibilityString } from '../../src/clients/visibility';
import { runCycleUpdate, sendUpdate } from '../../src/common/messages/agent';
import { stagedProgressQuery } from '../../src/common/messages/staged';
import { SYSTEM_PROMPTS } from '../../src/activities/model/system-prompts';
import { NO_CHANGE_NOTICE, NO_PLAN_NOTICE } from '../../src/core/staged/rules';
import type { StagedInput } from '../../src/core/staged/input';
import { type ScriptedWorker, scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { uniqueId, waitFor } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const agentId = () => uniqueId('visible');
const done: ScriptEntry = { tool: 'done', args: { summary: 'stage complete' } };
const write = (file: string, scratchpad?: unknown): ScriptEntry => ({
  tool: 'fs_write',
  args: { path: file, content: file, ...(scratchpad ? { scratchpad } : {}) },
});

async function runStaged(worker: ScriptedWorker, input: Partial<StagedInput>) {
  return worker.worker.runUntil(async () => {
    const handle = await startStaged(env.client, worker.taskQueue, { agentId: agentId(), task: 't', ...input });
    const result = await handle.result();
    return { result, progress: await handle.query(stagedProgressQuery) };
  });
}

/** Waits until visibility lists `count` finished runs of the agent: `last` must see every one of them. */
async function finishedRuns(agent: string, count: number): Promise<void> {
  const query = `AgentId = ${visibilityString(agent)} AND ExecutionStatus = 'Completed'`;
  await waitFor(
    async () => {
      let seen = 0;
      for await (const _execution of env.client.workflow.list({ query })) seen++;
      return seen >= count;
    },
    { timeoutMs: 10_000, what: `visibility to list ${count} finished runs of ${agent}` },
  );
}

describe('staged runs say what happened (issue 20)', () => {
  it('records a stage that changed nothing after its corrections, and says so in the outcome line', async () => {
    const worker = await scriptedWorker(env, bundle, [done, done, done, write('b.txt'), done], 'visible-no-change');
    const { result } = await runStaged(worker, { staged: false, maxCorrections: 2 });
    expect(result.stages.map((stage) => [stage.kind, stage.change, stage.corrections])).toEqual([
      ['stage', 'no_change', undefined],
      ['correction', 'no_change', undefined],
      ['correction', 'no_change', 2],
    ]);
    expect(result.reason).toBe(`the stages finished but no verification command was given; ${NO_CHANGE_NOTICE}`);
    expect(result.notices).toEqual([NO_CHANGE_NOTICE]);
  });

  it('records a run whose model gave no plan: it runs the task as one stage, and says so', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      // The plan call's one corrective retry gets no plan either.
      [{ text: 'Sure, I will just do it.' }, { text: 'Sure, I will just do it.' }, write('a.txt'), done],
      'visible-no-plan',
    );
    const { result, progress } = await runStaged(worker, { staged: true, task: 'Add a REST endpoint' });
    expect(result.plan).toEqual(['Add a REST endpoint']);
    expect(result.notices).toEqual([NO_PLAN_NOTICE]);
    expect(progress.notices).toEqual([NO_PLAN_NOTICE]);
    expect(result.stages.map((stage) => [stage.change, stage.touchedPaths])).toEqual([['changed', ['a.txt']]]);
  });

  it('"last" after a chat turn is the latest task cycle that left notes, named', async () => {
    const agent = agentId();
    const worker = await scriptedWorker(
      env,
      bundle,
      [
        write('n.txt', { plan: ['n'], next: 'check n' }),
        done,
        { text: 'Hello!' },
        { tool: 'update_scratchpad', args: { trajectory_now: 'greeted' } },
      ],
      'visible-last',
    );
    const target = { agentId: agent, taskQueue: worker.taskQueue };
    const notes = await worker.worker.runUntil(async () => {
      expect(await latestRunNotes(env.client, agent)).toBeUndefined();
      const cycle = await updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['write n.txt'] }]);
      const chat = await updateAgent(env.client, target, sendUpdate, [{ message: 'hi' }]);
      await env.client.workflow.getHandle(chat.cycleId).result();
      // Both turns are finished and listed: the chat turn is the agent's latest finished cycle.
      await finishedRuns(agent, 2);
      return { found: await latestRunNotes(env.client, agent), cycleId: cycle.cycleId };
    });
    expect(notes.found).toMatchObject({
      text: '{"plan":["n"],"next":"check n"}',
      workflowId: notes.cycleId,
      kind: 'task cycle',
    });
  });

  it("suggests the {plan, done, next, notes} notes convention in a task cycle's system prompt", () => {
    expect(SYSTEM_PROMPTS.cycle).toContain('{"plan": [...], "done": [...], "next": "...", "notes": "..."}');
    expect(SYSTEM_PROMPTS.staged.split('"scratchpad" field').length).toBe(2);
  });
});
