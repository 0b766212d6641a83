import {
  CYCLES_BUDGET_BYTES,
  type CycleRecord,
  MAX_MODELS_COUNTED,
  OTHER_MODELS,
  boundedUsageByModel,
  cycleRecordOf,
  rememberCycle,
  withNotice,
} from '../../../../src/core/agent/agent';
import { reconcileDirectives } from '../../../../src/core/agent/directives';
import { directiveRefusal } from '../../../../src/core/cycle/directive-caps';
import { fitHandover } from '../../../../src/core/agent/handover';
import { DIRECTIVES_BUDGET_BYTES, MAX_DIRECTIVE_CHARS } from '../../../../src/core/cycle/input';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';
import { payloadBytes } from '../../../../src/core/payload';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const heavy = (index: number) => `${index} ${'指'.repeat(MAX_DIRECTIVE_CHARS - 10)}`;

describe('what an agent holds stays within its budgets', () => {
  it('holds directives up to their count and their weight, whichever comes first', () => {
    expect(
      directiveRefusal(
        Array.from({ length: 100 }, (_, index) => `d${index}`),
        'one more',
      ),
    ).toBe('100 directives are held already');
    const held: string[] = [];
    while (directiveRefusal(held, heavy(held.length)) === null) held.push(heavy(held.length));
    expect(held.length).toBeGreaterThan(10);
    expect(payloadBytes(held)).toBeLessThanOrEqual(DIRECTIVES_BUDGET_BYTES);
    expect(directiveRefusal(held, heavy(99))).toMatch(/would pass 128 KB/);
    expect(directiveRefusal(held.slice(1), heavy(99))).toBeNull();
  });

  it('logs shown directives within the budget, newest kept; unseen ones are held again first', () => {
    const shown = Array.from({ length: 40 }, (_, index) => heavy(index));
    const book = reconcileDirectives({ held: ['later'], log: [] }, { cycleId: 'c1', given: [...shown, 'x'], shown });
    expect(book.held).toEqual(['x', 'later']);
    expect(payloadBytes(book.log)).toBeLessThanOrEqual(DIRECTIVES_BUDGET_BYTES);
    expect(book.log.at(-1)).toEqual({ text: heavy(39), cycleId: 'c1' });
  });

  it('remembers cycles by the openings of their directives, within the budget', () => {
    const result = { agentId: 'a', cycleId: 'c', outcome: 'completed' as const, iterations: 1, usage };
    const record = cycleRecordOf({ ...result, after: defaultScratchpad(), error: 'e'.repeat(10_000) }, 'task', [
      heavy(1),
      'short',
    ]);
    expect(record.directives[0]).toHaveLength(200);
    expect(record.directives[1]).toBe('short');
    expect(record.error?.length).toBe(2000);
    let cycles: CycleRecord[] = [];
    for (let index = 0; index < 60; index++) cycles = rememberCycle(cycles, { ...record, cycleId: `c${index}` });
    expect(cycles.length).toBeLessThanOrEqual(50);
    expect(cycles.at(-1)?.cycleId).toBe('c59');
    expect(payloadBytes(cycles)).toBeLessThanOrEqual(CYCLES_BUDGET_BYTES);
  });

  it('counts usage apart for a bounded number of models', () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`openai:m${index}@http://h/v1`, usage]));
    const bounded = boundedUsageByModel(many);
    expect(Object.keys(bounded)).toHaveLength(MAX_MODELS_COUNTED);
    expect(bounded[OTHER_MODELS]?.inputTokens).toBe(30 - (MAX_MODELS_COUNTED - 1));
    expect(boundedUsageByModel({ a: ZERO_USAGE })).toEqual({ a: ZERO_USAGE });
  });

  it('keeps the newest notices', () => {
    let notices: string[] = [];
    for (let index = 0; index < 30; index++) notices = withNotice(notices, `n${index}`, new Date(0));
    expect(notices).toHaveLength(20);
    expect(notices.at(-1)).toBe('1970-01-01T00:00:00.000Z n29');
  });

  it('hands over within the budget by forgetting old cycles and shown directives, never memory or held work', () => {
    const cycle = { cycleId: 'c', trigger: 'task' as const, outcome: 'completed' as const, iterations: 1, usage };
    const input = {
      agentId: 'a',
      handover: {
        cycleCount: 100,
        cycles: Array.from({ length: 50 }, () => ({ ...cycle, directives: ['d'.repeat(200)] })),
        heldDirectives: ['keep me'],
        directiveLog: Array.from({ length: 100 }, (_, index) => ({ text: heavy(index), cycleId: 'c' })),
        usageByModel: {},
        runs: 2,
      },
    };
    const fitted = fitHandover(input, 50_000);
    expect(payloadBytes(fitted)).toBeLessThanOrEqual(50_000);
    expect(fitted.handover?.heldDirectives).toEqual(['keep me']);
    expect(fitted.handover?.directiveLog.at(-1)?.text).toBe(heavy(99));
    expect(fitHandover(input)).toBe(input);
  });
});
