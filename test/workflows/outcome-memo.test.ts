import { TypedSearchAttributes } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { cycleApprovalsQuery } from '../../src/common/messages/cycle';
import { agentIdKey, cycleOutcomeKey } from '../../src/common/search-attributes';
import type { CycleInput } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { waitFor } from '../helpers/temporal';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

/** Starts a cycle directly, as a test of the kernel; the agent workflow starts them the same way as children. */
function startCycle(taskQueue: string, name: string, input: Partial<CycleInput>) {
  const agentId = `${name}-${process.pid}-${Date.now()}`;
  const before = enqueueTasks(defaultScratchpad('Look after the sandbox'), ['List the files']);
  return env.client.workflow.start('agentCycle', {
    taskQueue,
    workflowId: `agent/${agentId}/cycle/1`,
    args: [{ agentId, before, ...input } as CycleInput],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
}

/** What the Web UI shows of a closed cycle with no worker: its memo and its `CycleOutcome`. */
async function shown(workflowId: string) {
  const description = await env.client.workflow.getHandle(workflowId).describe();
  const memo = (description.memo ?? {}) as { outcome?: string; details?: string };
  return { memo, outcome: description.typedSearchAttributes.get(cycleOutcomeKey) };
}

describe('the outcome a cycle records at its end, for the Web UI with no worker', () => {
  it('a cycle stopped at its iteration limit says so in words, first in its details', async () => {
    const listing = { tool: 'shell', args: { command: 'ls' } };
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [listing, listing], 'memo-max');
    const cycle = await worker.runUntil(async () => {
      const handle = await startCycle(taskQueue, 'memo-max', { maxIterations: 2 });
      expect((await handle.result()).outcome).toBe('max_iterations');
      return handle;
    });
    const { memo, outcome } = await shown(cycle.workflowId);
    expect(outcome).toBe('max_iterations');
    const line = 'max_iterations: stopped at the limit of 2 iterations before the work was done';
    expect(memo.outcome).toBe(line);
    expect(memo.details?.split('\n')[0]).toBe(line);
    expect(memo.details).toContain('List the files');
  });

  it('a cancelled cycle is `cancelled` in the list and its memo, where it kept its last value before', async () => {
    const { worker, taskQueue } = await scriptedWorker(
      env,
      bundle,
      [{ tool: 'shell', args: { command: 'ls' } }],
      'memo-cancel',
    );
    const cycle = await worker.runUntil(async () => {
      // The call waits for a person: the cycle is mid-way when it is cancelled.
      const handle = await startCycle(taskQueue, 'memo-cancel', { approve: ['shell'] });
      await waitFor(async () => (await handle.query(cycleApprovalsQuery)).length === 1);
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      return handle;
    });
    const { memo, outcome } = await shown(cycle.workflowId);
    expect(outcome).toBe('cancelled');
    expect(memo.outcome).toMatch(/^cancelled: cancelled after \d+ iterations?; the agent keeps its scratchpad/);
  });
});
