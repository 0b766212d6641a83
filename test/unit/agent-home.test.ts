import { KEPT_CYCLES, cycleRecordOf, keepLast } from '../../src/core/agent/agent';
import { totalCost, usageCost } from '../../src/core/cycle/cost';
import { KEPT_DIRECTIVES, reconcileDirectives } from '../../src/core/agent/directives';
import { ZERO_USAGE, mergeUsageByModel, totalUsage } from '../../src/core/cycle/model';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';

const usage = (inputTokens: number, outputTokens = 0) => ({ ...ZERO_USAGE, inputTokens, outputTokens });

describe('directive reconciliation after a cycle', () => {
  it('logs what the cycle showed and holds again, first, what it was given but never showed', () => {
    const book = { held: ['arrived after the cycle ended'], log: [{ text: 'old', cycleId: 'agent/a/cycle/1' }] };

    const next = reconcileDirectives(book, {
      cycleId: 'agent/a/cycle/2',
      given: ['held before', 'forwarded early', 'forwarded late'],
      shown: ['held before', 'forwarded early'],
    });

    expect(next.held).toEqual(['forwarded late', 'arrived after the cycle ended']);
    expect(next.log).toEqual([
      { text: 'old', cycleId: 'agent/a/cycle/1' },
      { text: 'held before', cycleId: 'agent/a/cycle/2' },
      { text: 'forwarded early', cycleId: 'agent/a/cycle/2' },
    ]);
    expect(book.held).toEqual(['arrived after the cycle ended']);
  });

  it('holds every directive of a cycle that failed before its first iteration', () => {
    const next = reconcileDirectives({ held: [], log: [] }, { cycleId: 'c', given: ['a', 'b'], shown: [] });

    expect(next).toEqual({ held: ['a', 'b'], log: [] });
  });

  it(`keeps the last ${KEPT_DIRECTIVES} log entries`, () => {
    const log = Array.from({ length: KEPT_DIRECTIVES }, (_, n) => ({ text: `d${n}`, cycleId: 'c1' }));

    const next = reconcileDirectives({ held: [], log }, { cycleId: 'c2', given: ['new'], shown: ['new'] });

    expect(next.log).toHaveLength(KEPT_DIRECTIVES);
    expect(next.log[0]?.text).toBe('d1');
    expect(next.log.at(-1)).toEqual({ text: 'new', cycleId: 'c2' });
  });
});

describe('usage and cost totals', () => {
  it('merges usage per model without changing either side', () => {
    const before = { 'scripted:a': usage(10, 1) };

    const merged = mergeUsageByModel(before, { 'scripted:a': usage(5, 2), 'claude-sonnet-4-6': usage(1000) });

    expect(merged).toEqual({ 'scripted:a': usage(15, 3), 'claude-sonnet-4-6': usage(1000) });
    expect(before).toEqual({ 'scripted:a': usage(10, 1) });
    expect(totalUsage(merged)).toEqual(usage(1015, 3));
    expect(totalUsage({})).toEqual(ZERO_USAGE);
  });

  it('prices the sum of known models and gives null when any model has no price', () => {
    const known = { 'claude-sonnet-4-6': usage(1_000_000, 1_000_000), 'scripted:x': usage(99) };

    expect(totalCost(known)).toBeCloseTo(18);
    expect(totalCost(known)).toBe(usageCost('claude-sonnet-4-6', usage(1_000_000, 1_000_000)));
    expect(totalCost({ ...known, 'mystery-model': usage(1) })).toBeNull();
    expect(totalCost({})).toBe(0);
  });
});

describe('cycle records', () => {
  it('records a result with its trigger and shown directives, and keeps the last cycles', () => {
    const result = {
      agentId: 'a',
      cycleId: 'agent/a/cycle/3',
      outcome: 'failed' as const,
      after: defaultScratchpad(),
      iterations: 2,
      usage: usage(3),
      error: 'ModelError.Auth: 401',
    };

    expect(cycleRecordOf(result, 'schedule', ['d'])).toEqual({
      cycleId: 'agent/a/cycle/3',
      trigger: 'schedule',
      outcome: 'failed',
      iterations: 2,
      usage: usage(3),
      directives: ['d'],
      error: 'ModelError.Auth: 401',
    });
    expect(keepLast([1, 2, 3], 2)).toEqual([2, 3]);
    expect(keepLast([1], KEPT_CYCLES)).toEqual([1]);
  });
});
