import { cycleRecordOf, unknownOutcomesOf } from '../../../../src/core/agent/agent';
import { CycleRecordSchema } from '../../../../src/core/agent/cycle-record';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';
import { traceEntry } from '../../../../src/core/cycle/trace';
import {
  KEPT_UNKNOWN_OUTCOMES,
  idempotencyKey,
  unknownOutcomeObservation,
  unknownOutcomeOf,
} from '../../../../src/core/tools/idempotency';
import { observationText, toolNote } from '../../../../src/core/tools/observation';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';

const KEY = idempotencyKey('agent/a/cycle/3', 2, 1);

describe('unknown outcomes', () => {
  it('tell the model that the call may or may not have taken effect, its key, and to check before repeating', () => {
    const observation = unknownOutcomeObservation('pay did not finish and was not run again', {
      key: KEY,
      cause: 'activity Heartbeat timeout',
    });
    expect(KEY).toBe('agent/a/cycle/3/call/2.1');
    expect(toolNote('pay', { cents: 500 }, observation)).toBe(
      '[TOOL] pay({"cents":500}) → ERROR: pay did not finish and was not run again. Outcome unknown: the call may or ' +
        'may not have taken effect (no result came back: activity Heartbeat timeout). Its idempotency key is ' +
        'agent/a/cycle/3/call/2.1: check whether it took effect before you repeat the call.',
    );
    expect(unknownOutcomeOf(observation)).toEqual({ key: KEY, cause: 'activity Heartbeat timeout' });
    // A failed call whose tool answered is no unknown outcome.
    expect(unknownOutcomeOf({ ok: false, error: 'card declined' })).toBeUndefined();
    // A long cause is cut: the observation rides the notes and the cycle's result.
    const long = unknownOutcomeObservation('x', { key: KEY, cause: 'c'.repeat(1000) });
    expect(unknownOutcomeOf(long)?.cause).toHaveLength(300);
    expect(observationText(long)).toContain(KEY);
  });

  it('are marked in the trace entry of their call', () => {
    const observation = unknownOutcomeObservation('pay did not finish', { key: KEY, cause: 'timeout' });
    const response = { text: '', toolCalls: [], stopReason: 'tool_use', usage: ZERO_USAGE, model: 'scripted:test' };
    const call = { iteration: 2, phase: 'task' as const, request: { promptChars: 1, tools: ['pay'] }, response };
    const action = { tool: 'pay', args: {} };
    expect(traceEntry({ ...call, calls: [action] }, { dispatch: 'tool', action, observation }).unknownOutcome).toEqual({
      key: KEY,
      cause: 'timeout',
    });
    const known = traceEntry({ ...call, calls: [action] }, { dispatch: 'tool', action, observation: { ok: true } });
    expect(known.unknownOutcome).toBeUndefined();
  });

  it("are kept in the agent's cycle records, and status lists the newest of them", () => {
    const outcome = (n: number) => ({
      cycleId: `agent/a/cycle/${n}`,
      tool: 'pay',
      key: `k${n}`,
      iteration: 1,
      cause: 't',
    });
    const records = Array.from({ length: KEPT_UNKNOWN_OUTCOMES + 5 }, (_, index) => {
      const result = {
        agentId: 'a',
        cycleId: `agent/a/cycle/${index + 1}`,
        outcome: 'completed' as const,
        after: defaultScratchpad('x'),
        iterations: 1,
        usage: ZERO_USAGE,
        ...(index === 1 ? {} : { unknownOutcomes: [outcome(index + 1)] }),
      };
      return CycleRecordSchema().parse(cycleRecordOf(result, 'task', []));
    });
    expect(records[0]?.unknownOutcomes).toEqual([outcome(1)]);
    expect(records[1]?.unknownOutcomes).toBeUndefined();
    const listed = unknownOutcomesOf(records);
    // The newest within the limit: the first records' calls have left the list.
    expect(listed.map((entry) => entry.key)).toEqual(
      Array.from({ length: KEPT_UNKNOWN_OUTCOMES }, (_, index) => `k${index + 6}`),
    );
  });
});
