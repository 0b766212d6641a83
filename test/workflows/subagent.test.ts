import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { beforeQuery } from '../../src/common/messages/cycle';
import { subagentCycleId } from '../../src/common/ids';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { uniqueId } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

function cycleIdOf(): { agentId: string; cycleId: string } {
  const agentId = uniqueId('subagent');
  return { agentId, cycleId: `agent/${agentId}/cycle/1` };
}

async function runCycle(taskQueue: string, agentId: string, cycleId: string, input: Partial<CycleInput>) {
  const result: CycleResult = await env.client.workflow.execute('agentCycle', {
    taskQueue,
    workflowId: cycleId,
    args: [{ agentId, before: parentState, ...input }],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
  return result;
}

const parentState = {
  ...enqueueTasks(defaultScratchpad('Plan a trip'), ['Plan a weekend in the capital of France']),
  notes: 'parent-only note: the budget is 300 EUR',
  workspace: 'parent workspace draft',
};
const spawn = (task: string, context?: string) => ({
  tool: 'spawn_subagent',
  args: { task, ...(context !== undefined ? { context } : {}) },
});
const done = (summary: string) => ({ tool: 'done', args: { summary } });
const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

describe('spawn_subagent on the dev server', () => {
  it("runs a child cycle with a fresh scratchpad; its summary is the parent's observation and its usage the parent's", async () => {
    const { worker, taskQueue, model } = await scriptedWorker(
      env,
      bundle,
      [
        { ...spawn('Find the capital of France', 'Answer from general knowledge'), usage: usage(100, 10) },
        { tool: 'update_scratchpad', args: { understanding_known: 'Paris is the capital' }, usage: usage(20, 2) },
        { ...done('The capital of France is Paris'), usage: usage(30, 3) },
        { ...done('Weekend in Paris planned'), usage: usage(100, 10) },
      ],
      'subagent',
    );
    const { agentId, cycleId } = cycleIdOf();
    const childId = subagentCycleId(cycleId, 1);

    const { result, childBefore, childResult } = await worker.runUntil(async () => {
      const parent = await runCycle(taskQueue, agentId, cycleId, {});
      const child = env.client.workflow.getHandle(childId);
      return { result: parent, childBefore: await child.query(beforeQuery), childResult: await child.result() };
    });

    expect(result.outcome).toBe('completed');
    expect(result.iterations).toBe(2);
    const observation =
      '[TOOL] spawn_subagent({"task":"Find the capital of France","context":"Answer from general knowledge"}) → ' +
      `{"result":"The capital of France is Paris","subagent":"${childId}","outcome":"completed","iterations":2}`;
    expect(result.after.notes).toContain(observation);
    // The model saw the child's answer at its next step.
    expect(model.requests[3]?.messages[0]?.content).toContain(observation);

    // A fresh scratchpad: the task as purpose and current task, the context as workspace, nothing of the parent's.
    expect(childBefore.identity.purpose).toBe('Find the capital of France');
    expect(childBefore.current_task).toBe('Find the capital of France');
    expect(childBefore.workspace).toBe('Answer from general knowledge');
    expect(childBefore.notes).toBe('');
    expect(childBefore.pending_actions).toEqual([]);
    expect(JSON.stringify(childBefore)).not.toContain('300 EUR');
    expect(model.requests[1]?.messages[0]?.content).not.toContain('300 EUR');
    expect(childResult.after.understanding.known).toBe('Paris is the capital');

    // The child's two calls are counted in the parent's usage, in total and by model.
    expect(childResult.usage).toEqual(usage(50, 5));
    expect(result.usage).toEqual(usage(250, 25));
    expect(result.usageByModel).toEqual({ 'scripted:subagent': usage(250, 25) });
  });

  it('refuses bad arguments and a fourth spawn in one cycle with observations the model sees', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(
      env,
      bundle,
      [
        { tool: 'spawn_subagent', args: { context: 'no task given' } },
        spawn('Sub-task one'),
        done('one done'),
        spawn('Sub-task two'),
        done('two done'),
        spawn('Sub-task three'),
        done('three done'),
        spawn('Sub-task four'),
        done('all planned'),
      ],
      'subagent-count',
    );
    const { agentId, cycleId } = cycleIdOf();

    const result = await worker.runUntil(runCycle(taskQueue, agentId, cycleId, {}));

    expect(result.outcome).toBe('completed');
    expect(result.iterations).toBe(6);
    expect(result.after.notes).toContain('→ ERROR: invalid spawn_subagent arguments: task:');
    for (const [n, summary] of [
      [1, 'one done'],
      [2, 'two done'],
      [3, 'three done'],
    ] as const) {
      expect(result.after.notes).toContain(`"result":"${summary}","subagent":"${subagentCycleId(cycleId, n)}"`);
    }
    const refusal =
      '[TOOL] spawn_subagent({"task":"Sub-task four"}) → ERROR: spawn_subagent refused: this cycle has already ' +
      'spawned 3 sub-agents, the limit is 3 per cycle; do the rest yourself';
    expect(result.after.notes).toContain(refusal);
    expect(model.requests.at(-1)?.messages[0]?.content).toContain(refusal);
    // Nine model calls in all: the refused spawns started nothing.
    expect(model.requests).toHaveLength(9);
    await expect(env.client.workflow.getHandle(subagentCycleId(cycleId, 4)).describe()).rejects.toThrow(/not found/i);
  });

  it('nests sub-agents down to the depth limit, where a spawn is refused', async () => {
    const { worker, taskQueue } = await scriptedWorker(
      env,
      bundle,
      [
        spawn('Level one', 'from the parent'),
        spawn('Level two', 'from level one'),
        spawn('Level three'),
        done('level two did it itself'),
        done('level one got: level two did it itself'),
        done('parent finished'),
      ],
      'subagent-depth',
    );
    const { agentId, cycleId } = cycleIdOf();
    const childId = subagentCycleId(cycleId, 1);
    const grandchildId = subagentCycleId(childId, 1);

    const { result, grandchild } = await worker.runUntil(async () => ({
      result: await runCycle(taskQueue, agentId, cycleId, {}),
      grandchild: (await env.client.workflow.getHandle(grandchildId).result()) as CycleResult,
    }));

    expect(result.outcome).toBe('completed');
    expect(grandchild.after.identity.purpose).toBe('Level two');
    expect(grandchild.after.notes).toContain(
      '→ ERROR: spawn_subagent refused: this cycle is a sub-agent at depth 2, the limit is 2; do the task yourself',
    );
    expect(result.after.notes).toContain(`"result":"level one got: level two did it itself","subagent":"${childId}"`);
    await expect(env.client.workflow.getHandle(subagentCycleId(grandchildId, 1)).describe()).rejects.toThrow(
      /not found/i,
    );
  });

  it('a child that fails is an observation: the parent cycle goes on', async () => {
    const { worker, taskQueue } = await scriptedWorker(
      env,
      bundle,
      [
        spawn('Ask the broken model'),
        { error: { type: 'ModelError.Auth', message: '401 invalid api key', nonRetryable: true } },
        done('did it without help'),
      ],
      'subagent-failed',
    );
    const { agentId, cycleId } = cycleIdOf();

    const result = await worker.runUntil(runCycle(taskQueue, agentId, cycleId, {}));

    expect(result.outcome).toBe('completed');
    expect(result.after.notes).toContain(
      `[TOOL] spawn_subagent({"task":"Ask the broken model"}) → ERROR: sub-agent ${subagentCycleId(cycleId, 1)} ` +
        'failed: ModelError.Auth: 401 invalid api key',
    );
    expect(result.after.completed_tasks).toEqual([
      { task: 'Plan a weekend in the capital of France', summary: 'did it without help' },
    ]);
  });

  it('a child that runs out of iterations is reported with the end of its notes', async () => {
    const { worker, taskQueue } = await scriptedWorker(
      env,
      bundle,
      [
        spawn('Count sheep'),
        { tool: 'echo', args: { message: 'sheep 1' } },
        { tool: 'echo', args: { message: 'sheep 2' } },
        done('gave up on the sheep'),
      ],
      'subagent-stopped',
    );
    const { agentId, cycleId } = cycleIdOf();

    const result = await worker.runUntil(runCycle(taskQueue, agentId, cycleId, { maxIterations: 2 }));

    expect(result.outcome).toBe('completed');
    const note = result.after.notes.split('\n[COMPLETED]')[0] ?? '';
    expect(note).toContain(
      `ERROR: sub-agent ${subagentCycleId(cycleId, 1)} stopped (max_iterations) after 2 iterations without finishing`,
    );
    expect(note).toContain('[TOOL] echo({"message":"sheep 2"}) → ECHO: sheep 2');
  });
});
