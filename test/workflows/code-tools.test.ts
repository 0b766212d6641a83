import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';
import { ToolRegistry } from '../../src/activities/tools/registry';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { uniqueId } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const calls: unknown[] = [];

const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look up an order by id.',
  input: z.object({ id: z.string().regex(/^A\d+$/), verbose: z.boolean().default(false) }),
  run: async (args, context) => {
    calls.push({ args, cycleId: context.cycleId, step: context.step, sandbox: typeof context.sandboxRoot });
    return { id: args.id, status: 'shipped', verbose: args.verbose };
  },
});

const bigReport = defineTool({
  name: 'big_report',
  description: 'A report of many lines.',
  input: { type: 'object', properties: { lines: { type: 'integer', minimum: 1 } }, required: ['lines'] },
  run: (args: { lines: number }) => Array.from({ length: args.lines }, (_, index) => `line ${index + 1}`).join('\n'),
});

const inlineReport = defineTool({
  name: 'inline_report',
  description: 'A report that must stay inline.',
  input: { type: 'object', properties: {} },
  offload: false,
  run: () => 'x'.repeat(100_000),
});

const failing = defineTool({
  name: 'flaky_backend',
  description: 'Always fails.',
  input: z.object({}),
  run: () => {
    throw new Error('backend said no');
  },
});

const slow = defineTool({
  name: 'slow_tool',
  description: 'Never finishes in time.',
  input: z.object({}),
  timeoutMs: 300,
  run: () => new Promise(() => undefined),
});

const registry = new ToolRegistry([lookupOrder, bigReport, inlineReport, failing, slow]);

async function runCycle(taskQueue: string, input: Partial<CycleInput>): Promise<CycleResult> {
  const agentId = uniqueId('code-tools');
  const before = enqueueTasks(defaultScratchpad('Answer order questions'), ['Check order A17']);
  return env.client.workflow.execute('agentCycle', {
    taskQueue,
    workflowId: `agent/${agentId}/cycle/1`,
    args: [{ agentId, before, ...input } as CycleInput],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
}

async function run(script: ScriptEntry[], input: Partial<CycleInput> = {}) {
  const setup = await scriptedWorker(env, bundle, script, 'code-tools', {}, { toolRegistry: registry });
  const result = await setup.worker.runUntil(runCycle(setup.taskQueue, input));
  return { result, model: setup.model };
}

describe('tools defined in code, through real cycles', () => {
  it('are offered with the built-ins by default, validated, run and noted', async () => {
    calls.length = 0;
    const { result, model } = await run([
      { tool: 'lookup_order', args: { id: 'nope' } },
      { tool: 'lookup_order', args: { id: 'A17' } },
      { tool: 'done', args: { summary: 'A17 shipped' } },
    ]);
    expect(result.outcome).toBe('completed');
    expect(model.requests[0]?.tools).toEqual(
      expect.arrayContaining(['echo', 'spawn_subagent', 'lookup_order', 'big_report']),
    );
    // The bad id never reached the tool; the good one did, with zod's default applied.
    expect(calls).toEqual([
      { args: { id: 'A17', verbose: false }, cycleId: expect.any(String), step: 2, sandbox: 'string' },
    ]);
    expect(result.after.notes).toContain(
      '[TOOL] lookup_order({"id":"nope"}) → ERROR: invalid arguments for lookup_order',
    );
    expect(result.after.notes).toContain('"status":"shipped"');
  });

  it('offload a large result, keep an offload: false one inline but cut, and turn errors and timeouts into observations', async () => {
    const { result } = await run([
      { tool: 'big_report', args: { lines: 5000 } },
      { tool: 'inline_report', args: {} },
      { tool: 'flaky_backend', args: {} },
      { tool: 'slow_tool', args: {} },
      { tool: 'big_report', args: { lines: 0 } },
      { tool: 'done', args: { summary: 'looked' } },
    ]);
    expect(result.outcome).toBe('completed');
    const notes = result.after.notes;
    expect(notes).toMatch(/\[TOOL\] big_report\(\{"lines":5000\}\) → .*scratchpad_id/);
    expect(notes).toContain('[TOOL] flaky_backend({}) → ERROR: backend said no');
    expect(notes).toContain('[TOOL] slow_tool({}) → ERROR: slow_tool timed out after 300 ms');
    expect(notes).toMatch(
      /big_report\(\{"lines":0\}\) → ERROR: invalid arguments for big_report:\n- lines: must be >= 1/,
    );
    const inline = notes.split('\n').find((line) => line.startsWith('[TOOL] inline_report'));
    expect(inline).toMatch(/→ \{"result":"x{1000}/);
    expect(inline).not.toContain('scratchpad_id');
  });

  it("take the worker's default selection when the cycle names none", async () => {
    const narrowed = new ToolRegistry([lookupOrder, bigReport], undefined, ['echo', 'lookup_*']);
    const setup = await scriptedWorker(
      env,
      bundle,
      [{ tool: 'done', args: { summary: 'ok' } }],
      'code-tools',
      {},
      {
        toolRegistry: narrowed,
      },
    );
    const result = await setup.worker.runUntil(runCycle(setup.taskQueue, {}));
    expect(result.outcome).toBe('completed');
    expect(setup.model.requests[0]?.tools).toEqual(['echo', 'lookup_order', 'update_scratchpad', 'done']);
  });

  it('select by names and globs, and note a pattern that matches nothing', async () => {
    const { result, model } = await run([{ tool: 'done', args: { summary: 'nothing to do' } }], {
      tools: ['echo', '*_report', 'github__*'],
    });
    expect(result.outcome).toBe('completed');
    expect(model.requests[0]?.tools).toEqual(['echo', 'big_report', 'inline_report', 'update_scratchpad', 'done']);
    expect(result.after.notes).toContain('[TOOLS] not on this worker, so not offered: github__*');
  });
});
