import { type CycleRecord, cycleRecordOf } from '../../../../src/core/agent/agent';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { type KnownCycles, recordOf, waitRefusal } from '../../../../src/core/agent/cycle-wait';
import { cycleWorkflowId, parseCycleWorkflowId } from '../../../../src/common/ids';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';

const AGENT = 'ada';

function record(n: number, outcome: CycleRecord['outcome'] = 'completed'): CycleRecord {
  return {
    cycleId: cycleWorkflowId(AGENT, n),
    trigger: 'chat',
    outcome,
    iterations: 1,
    usage: ZERO_USAGE,
    directives: [],
  };
}

/** Why a wait for `cycleId` is refused, as the workflow asks with the id parsed. */
function refusal(known: KnownCycles, cycleId: string): string | null {
  return waitRefusal(known, cycleId, parseCycleWorkflowId(cycleId));
}

describe('waiting for a cycle', () => {
  const known = {
    agentId: AGENT,
    cycleCount: 60,
    running: cycleWorkflowId(AGENT, 60),
    cycles: [11, 12, 59].map((n) => record(n)),
  };

  it('lets a wait through for the running cycle and for one the agent has a record of', () => {
    expect(refusal(known, cycleWorkflowId(AGENT, 60))).toBeNull();
    expect(refusal(known, cycleWorkflowId(AGENT, 59))).toBeNull();
    expect(refusal({ ...known, running: undefined }, cycleWorkflowId(AGENT, 12))).toBeNull();
  });

  it('refuses, with the reason, a cycle never started, forgotten, or of another agent', () => {
    expect(refusal(known, cycleWorkflowId(AGENT, 61))).toBe('agent ada never ran cycle 61: it has started 60 cycles');
    expect(refusal(known, cycleWorkflowId(AGENT, 3))).toBe(
      'agent ada no longer keeps a record of cycle 3 (only its latest cycles)',
    );
    expect(refusal(known, cycleWorkflowId('bob', 59))).toBe('agent/bob/cycle/59 is not a cycle of agent ada');
    expect(refusal(known, 'agent/ada')).toBe('agent/ada is not a cycle of agent ada');
  });

  it("finds a cycle's newest record", () => {
    const again = { ...record(12, 'cancelled') };
    expect(recordOf([record(12), record(13), again], cycleWorkflowId(AGENT, 12))).toBe(again);
    expect(recordOf([record(12)], cycleWorkflowId(AGENT, 14))).toBeUndefined();
  });
});

describe("a cycle's record", () => {
  it('says when the reply was cut at the output cap', () => {
    const result = { agentId: AGENT, cycleId: cycleWorkflowId(AGENT, 1), outcome: 'completed' as const, iterations: 1 };
    const base = { ...result, usage: ZERO_USAGE, after: defaultScratchpad() };
    expect(cycleRecordOf({ ...base, replyCut: true }, 'chat', [])).toMatchObject({ replyCut: true });
    expect(cycleRecordOf(base, 'chat', [])).not.toHaveProperty('replyCut');
  });
});
