import { MAX_CYCLE_DIRECTIVES } from '../../../../src/core/cycle/input';
import { AgentCycleInputSchema, withDefaultKind } from '../../../../src/core/agent/cycle-input';
import { InvestigationInputSchema } from '../../../../src/core/research/investigation-input';
import { StageCycleInputSchema } from '../../../../src/core/staged/input';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';

const before = defaultScratchpad();

describe("each feature's cycle input: the base input extended", () => {
  it("reads an agent cycle's start without kind as a task cycle", () => {
    expect(AgentCycleInputSchema().parse(withDefaultKind({ agentId: 'a', before }))).toMatchObject({ kind: 'task' });
  });

  it('refuses a key no kind knows, naming it: an old mode, a stage field on a task', () => {
    for (const extra of [{ mode: 'chat' }, { stageContext: 'x' }, { maxPaths: 3 }]) {
      const parsed = AgentCycleInputSchema().safeParse(withDefaultKind({ agentId: 'a', before, ...extra }));
      expect(parsed.success).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toContain(Object.keys(extra)[0]);
    }
  });

  it("takes each feature's own block, and only that block", () => {
    const stage = { agentId: 'a', before, stage: { context: 'c', maxPaths: 2 } };
    expect(StageCycleInputSchema().safeParse(stage).success).toBe(true);
    expect(AgentCycleInputSchema().safeParse({ ...stage, kind: 'task' }).success).toBe(false);
    expect(AgentCycleInputSchema().safeParse({ kind: 'chat', agentId: 'a', before }).success).toBe(false);
    expect(InvestigationInputSchema().safeParse({ agentId: 'a', before }).success).toBe(false);
  });

  it(`holds at most ${MAX_CYCLE_DIRECTIVES} directives`, () => {
    const directives = Array.from({ length: MAX_CYCLE_DIRECTIVES + 1 }, (_, index) => `d${index}`);
    expect(AgentCycleInputSchema().safeParse({ kind: 'task', agentId: 'a', before, directives }).success).toBe(false);
  });
});
