import { defaultScratchpad, enqueueTasks } from '../../../../src/core/scratchpad/scratchpad';
import {
  MAX_STATE_BYTES,
  importViolation,
  queueViolation,
  stateBytes,
} from '../../../../src/core/scratchpad/state-caps';

// 5,000 CJK characters: 15,000 bytes of UTF-8 each, the most one queued task may carry.
const bigTask = (n: number) => `${n}:${'任'.repeat(4990)}`;

describe('user queue paths keep the state size cap', () => {
  it('accepts tasks that fit, whatever their number', () => {
    const before = defaultScratchpad('p');
    const tasks = Array.from({ length: 300 }, (_, n) => `task ${n}`);
    expect(queueViolation(before, enqueueTasks(before, tasks))).toBeNull();
  });

  it('refuses tasks that would grow the state past the cap, naming the size and the limit', () => {
    const before = defaultScratchpad('p');
    const after = enqueueTasks(
      before,
      Array.from({ length: 20 }, (_, n) => bigTask(n)),
    );
    expect(stateBytes(after)).toBeGreaterThan(MAX_STATE_BYTES);
    expect(queueViolation(before, after)).toMatch(
      new RegExp(`^the scratchpad would grow to \\d+ bytes \\(limit ${MAX_STATE_BYTES}\\): let the agent work`),
    );
  });

  it('counts goals as well as tasks', () => {
    const before = defaultScratchpad('p');
    const after = enqueueTasks(
      before,
      [],
      Array.from({ length: 20 }, (_, n) => bigTask(n)),
    );
    expect(queueViolation(before, after)).not.toBeNull();
  });

  it('refuses an import over the cap and accepts one under it', () => {
    const state = defaultScratchpad('p');
    expect(importViolation(state)).toBeNull();
    const big = { ...state, workspace: 'x'.repeat(MAX_STATE_BYTES) };
    expect(importViolation(big)).toMatch(/^the import is \d+ bytes as JSON \(limit 262144\)$/);
  });
});
