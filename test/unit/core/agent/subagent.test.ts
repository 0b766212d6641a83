import { subagentCycleId } from '../../../../src/common/ids';
import type { CycleResult } from '../../../../src/core/cycle/input';
import { AgentCycleInputSchema } from '../../../../src/core/agent/cycle-input';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';
import { toolNote } from '../../../../src/core/tools/observation';
import { defaultScratchpad, enqueueTasks } from '../../../../src/core/scratchpad/scratchpad';
import { MAX_ITEM_CHARS } from '../../../../src/core/scratchpad/state-caps';
import {
  MAX_SUBAGENT_DEPTH,
  MAX_SUBAGENTS_PER_CYCLE,
  SUBAGENT_NOTES_CHARS,
  SubagentCycleInputSchema,
  parseSubagentArgs,
  subagentInput,
  subagentObservation,
  subagentRefusal,
  withChildUsage,
} from '../../../../src/core/agent/subagent';
import { ACTIVITY_TOOLS, CYCLE_TOOLS, SPAWN_SUBAGENT, isActivityTool } from '../../../../src/core/tools/catalogue';
import { selectTools } from '../../../../src/core/tools/select';

const usage = (inputTokens: number, outputTokens: number) => ({ ...ZERO_USAGE, inputTokens, outputTokens });

function result(overrides: Partial<CycleResult>): CycleResult {
  const after = defaultScratchpad('child');
  return {
    agentId: 'a',
    cycleId: 'agent/a/cycle/1/sub/1',
    outcome: 'completed',
    after,
    iterations: 2,
    usage: ZERO_USAGE,
    ...overrides,
  };
}

describe('spawn_subagent rules', () => {
  it('is offered to cycles by default but is no activity tool', () => {
    // No tools in the input: the default selection, which offers it alongside the built-ins.
    expect(
      AgentCycleInputSchema().parse({ kind: 'task', agentId: 'a', before: defaultScratchpad() }).tools,
    ).toBeUndefined();
    const builtins = ACTIVITY_TOOLS.map((name) => ({ name, source: 'builtin' }));
    expect(selectTools(undefined, builtins, [SPAWN_SUBAGENT]).offered).toEqual(CYCLE_TOOLS);
    expect(CYCLE_TOOLS).toContain(SPAWN_SUBAGENT);
    expect(isActivityTool(SPAWN_SUBAGENT)).toBe(false);
    expect(ACTIVITY_TOOLS as readonly string[]).not.toContain(SPAWN_SUBAGENT);
  });

  it('refuses at the depth limit and past the per-cycle count, saying which limit', () => {
    for (let depth = 0; depth <= MAX_SUBAGENT_DEPTH; depth++) {
      for (let spawned = 0; spawned <= MAX_SUBAGENTS_PER_CYCLE + 1; spawned++) {
        const refusal = subagentRefusal(depth, spawned);
        if (depth >= MAX_SUBAGENT_DEPTH) expect(refusal).toContain(`the limit is ${MAX_SUBAGENT_DEPTH}`);
        else if (spawned >= MAX_SUBAGENTS_PER_CYCLE) expect(refusal).toContain(`${MAX_SUBAGENTS_PER_CYCLE} per cycle`);
        else expect(refusal).toBeUndefined();
      }
    }
  });

  it('checks the arguments: a task is required and capped, context is optional and capped', () => {
    expect(parseSubagentArgs({ task: ' Find X ', context: 'c' })).toEqual({ ok: true, task: 'Find X', context: 'c' });
    expect(parseSubagentArgs({ task: 'Find X' })).toEqual({ ok: true, task: 'Find X', context: '' });
    for (const bad of [
      {},
      { task: '   ' },
      { task: 'x'.repeat(MAX_ITEM_CHARS + 1) },
      { task: 'x', context: 'y'.repeat(5001) },
      { task: 7 },
    ]) {
      const parsed = parseSubagentArgs(bad);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/^invalid spawn_subagent arguments: (task|context)/);
    }
  });

  it("builds the child's input: a fresh scratchpad, the parent's settings, one level deeper", () => {
    const parentState = { ...enqueueTasks(defaultScratchpad('Parent'), ['big job']), notes: 'parent secret' };
    const parent = AgentCycleInputSchema().parse({
      kind: 'task',
      agentId: 'a',
      before: parentState,
      model: 'scripted:x',
      maxIterations: 7,
    });
    const id = subagentCycleId('agent/a/cycle/3', 1);
    expect(id).toBe('agent/a/cycle/3/sub/1');
    const input = subagentInput({ parent, depth: 0 }, id, 'Find X', 'X lives in Y');
    expect(input).toMatchObject({ agentId: 'a', cycleId: id, model: 'scripted:x', maxIterations: 7 });
    expect(input.depth).toBe(1);
    expect(input.tools).toEqual(parent.tools);
    expect(input.before.identity.purpose).toBe('Find X');
    expect(input.before.current_task).toBe('Find X');
    expect(input.before.workspace).toBe('X lives in Y');
    expect(input.before.notes).toBe('');
    expect(input.before.pending_actions).toEqual([]);
    expect(SubagentCycleInputSchema().parse(input).depth).toBe(1);
    expect(subagentInput({ parent, depth: 0 }, id, 'Find X', '').before.workspace).toBe(defaultScratchpad().workspace);
    // The depth the schema accepts ends at the limit: a child input past it is rejected, not run.
    expect(SubagentCycleInputSchema().safeParse({ ...input, depth: MAX_SUBAGENT_DEPTH + 1 }).success).toBe(false);
  });

  it("turns the child's result into the parent's observation", () => {
    const done = { ...defaultScratchpad('c'), completed_tasks: [{ task: 'Find X', summary: 'X is 42' }] };
    expect(subagentObservation(result({ after: done }))).toEqual({
      ok: true,
      result: 'X is 42',
      subagent: 'agent/a/cycle/1/sub/1',
      outcome: 'completed',
      iterations: 2,
    });
    const notes = `start ${'n'.repeat(2 * SUBAGENT_NOTES_CHARS)} last line`;
    const after = { ...done, completed_tasks: [], notes };
    const stopped = subagentObservation(result({ outcome: 'max_iterations', after }));
    expect(stopped).toMatchObject({ ok: false, subagent: 'agent/a/cycle/1/sub/1', outcome: 'max_iterations' });
    const [reason, tail] = String(stopped.error).split('\n');
    expect(reason).toBe(
      'sub-agent agent/a/cycle/1/sub/1 stopped (max_iterations) after 2 iterations without finishing its task; ' +
        'the end of its notes:',
    );
    expect(tail).toMatch(/^…n+ last line$/);
    expect(tail).toHaveLength(SUBAGENT_NOTES_CHARS + 1);
    // The parent's note keeps the whole of it.
    expect(toolNote('spawn_subagent', {}, stopped)).toContain(' last line');
    const failed = subagentObservation(result({ outcome: 'failed', error: 'model gave up' }));
    expect(failed).toMatchObject({ ok: false, error: 'sub-agent agent/a/cycle/1/sub/1 failed: model gave up' });
  });

  it("adds the child's usage to the parent's, in total and by model", () => {
    const parent = { usage: usage(10, 1), usageByModel: { 'scripted:a': usage(10, 1) } };
    const added = withChildUsage(parent, {
      usage: usage(5, 2),
      usageByModel: { 'scripted:a': usage(3, 1), 'scripted:b': usage(2, 1) },
    });
    expect(added.usage).toEqual(usage(15, 3));
    expect(added.usageByModel).toEqual({ 'scripted:a': usage(13, 2), 'scripted:b': usage(2, 1) });
    expect(parent.usageByModel['scripted:a']).toEqual(usage(10, 1));
  });
});
