import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { traceQuery } from '../../src/common/messages/cycle';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { uniqueId } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

async function runCycle(taskQueue: string, input: Record<string, unknown>) {
  const agentId = uniqueId('several');
  const handle = await env.client.workflow.start('agentCycle', {
    taskQueue,
    workflowId: `agent/${agentId}/cycle/1`,
    args: [{ agentId, ...input }],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
  const result: CycleResult = await handle.result();
  return { result, trace: await handle.query(traceQuery) };
}

const before = enqueueTasks(defaultScratchpad('Several calls'), ['Write two files', 'Then rest']);
const REFUSED = 'not run: one call besides update_scratchpad per response, and fs_write ran; call fs_write again';

describe('a response with several tool calls', () => {
  it('task cycle: applies every update in order, runs the first other call, refuses the rest with a note', async () => {
    const { worker, taskQueue, model, tools } = await scriptedWorker(env, bundle, [
      {
        calls: [
          { tool: 'update_scratchpad', args: { trajectory_now: 'Writing a' } },
          { tool: 'fs_write', args: { path: 'a.txt', content: 'A' } },
          { tool: 'fs_write', args: { path: 'b.txt', content: 'B' } },
          { tool: 'update_scratchpad', args: { self_flags: 'APPEND: b.txt still to write' } },
          { tool: 'done', args: { summary: 'too early' } },
        ],
      },
      { tool: 'fs_write', args: { path: 'b.txt', content: 'B' } },
      { tool: 'done', args: { summary: 'wrote both' } },
    ]);

    const { result, trace } = await worker.runUntil(runCycle(taskQueue, { before }));

    expect(result.outcome).toBe('completed');
    expect(result.iterations).toBe(3);
    expect(await fs.readFile(path.join(tools.sandboxRoot, 'a.txt'), 'utf-8')).toBe('A');
    expect(await fs.readFile(path.join(tools.sandboxRoot, 'b.txt'), 'utf-8')).toBe('B');
    expect(result.after.trajectory.now).toBe('Writing a');
    expect(result.after.self.flags).toContain('b.txt still to write');
    expect(result.after.completed_tasks).toEqual([{ task: 'Write two files', summary: 'wrote both' }]);
    expect(trace.filter((entry) => entry.iteration === 1).map((entry) => entry.dispatch)).toEqual([
      'update',
      'tool',
      'refused',
      'update',
      'refused',
    ]);
    // The model saw the refusals in its next prompt, as notes.
    const secondPrompt = model.requests[1]?.messages[0]?.content ?? '';
    expect(secondPrompt).toContain(`[TOOL] fs_write({"path":"b.txt","content":"B"}) → ERROR: ${REFUSED}`);
    expect(secondPrompt).toContain('[TOOL] done({"summary":"too early"}) → ERROR: not run');
  });

  it('chat turn: the same rule, the refusal shown among the turn tool results', async () => {
    const { worker, taskQueue, model, tools } = await scriptedWorker(
      env,
      bundle,
      [
        {
          text: 'Writing both.',
          calls: [
            { tool: 'fs_write', args: { path: 'a.txt', content: 'A' } },
            { tool: 'update_scratchpad', args: { trajectory_now: 'Writing files' } },
            { tool: 'fs_write', args: { path: 'b.txt', content: 'B' } },
          ],
        },
        { text: 'Wrote a.txt; b.txt was not written.' },
      ],
      'several-chat',
    );

    const { result, trace } = await worker.runUntil(
      runCycle(taskQueue, { before, kind: 'chat', message: 'write a.txt and b.txt', twoPhase: false }),
    );

    expect(result.outcome).toBe('completed');
    expect(result.reply).toBe('Wrote a.txt; b.txt was not written.');
    expect(result.after.trajectory.now).toBe('Writing files');
    expect(await fs.readFile(path.join(tools.sandboxRoot, 'a.txt'), 'utf-8')).toBe('A');
    await expect(fs.stat(path.join(tools.sandboxRoot, 'b.txt'))).rejects.toThrow('ENOENT');
    expect(trace.map((entry) => entry.dispatch)).toEqual(['tool', 'update', 'refused', 'reply']);
    const secondTurn = model.requests[1]?.messages.at(-1)?.content ?? '';
    expect(secondTurn).toContain('- fs_write({"path":"a.txt","content":"A"}) → ');
    expect(secondTurn).toContain(`- fs_write({"path":"b.txt","content":"B"}) → ERROR: ${REFUSED}`);
  });

  it('chat turn in two phases: an update made while responding is refused within the turn, not dropped', async () => {
    const { worker, taskQueue, model } = await scriptedWorker(
      env,
      bundle,
      [
        { text: 'Noted.', tool: 'update_scratchpad', args: { identity_user: 'Ada' } },
        { text: 'Hello Ada.' },
        { tool: 'update_scratchpad', args: { identity_user: 'Ada' } },
      ],
      'several-two-phase',
    );

    const { result, trace } = await worker.runUntil(
      runCycle(taskQueue, { before, kind: 'chat', message: 'I am Ada', twoPhase: true }),
    );

    expect(result.reply).toBe('Hello Ada.');
    expect(result.after.identity.user).toBe('Ada');
    expect(trace.map((entry) => entry.dispatch)).toEqual(['unknown_tool', 'reply', 'reflect']);
    expect(model.requests[1]?.messages.at(-1)?.content).toContain(
      'update_scratchpad({"identity_user":"Ada"}) → ERROR: update_scratchpad is not offered here',
    );
  });
});
