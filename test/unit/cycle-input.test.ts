import { CycleInputSchema, MAX_CYCLE_DIRECTIVES, withDefaultKind } from '../../src/core/cycle/input';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';

const before = defaultScratchpad();

describe('the cycle input, a union by kind', () => {
  it('reads a start without kind as a task cycle', () => {
    expect(CycleInputSchema().parse(withDefaultKind({ agentId: 'a', before }))).toMatchObject({ kind: 'task' });
  });

  it('refuses a key no kind knows, naming it: an old mode, a stage field on a task', () => {
    for (const extra of [{ mode: 'chat' }, { stageContext: 'x' }, { maxPaths: 3 }]) {
      const parsed = CycleInputSchema().safeParse(withDefaultKind({ agentId: 'a', before, ...extra }));
      expect(parsed.success).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toContain(Object.keys(extra)[0]);
    }
  });

  it('takes each kind with its own block, and only that block', () => {
    const stage = { kind: 'stage', agentId: 'a', before, stage: { context: 'c', maxPaths: 2 } };
    expect(CycleInputSchema().safeParse(stage).success).toBe(true);
    expect(CycleInputSchema().safeParse({ ...stage, kind: 'task' }).success).toBe(false);
    expect(CycleInputSchema().safeParse({ kind: 'chat', agentId: 'a', before }).success).toBe(false);
    expect(CycleInputSchema().safeParse({ kind: 'investigation', agentId: 'a', before }).success).toBe(false);
  });

  it(`holds at most ${MAX_CYCLE_DIRECTIVES} directives`, () => {
    const directives = Array.from({ length: MAX_CYCLE_DIRECTIVES + 1 }, (_, index) => `d${index}`);
    expect(CycleInputSchema().safeParse({ kind: 'task', agentId: 'a', before, directives }).success).toBe(false);
  });
});
