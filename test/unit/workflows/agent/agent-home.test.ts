import { MAX_CYCLE_DIRECTIVES } from '../../../../src/core/cycle/input';
import { ApplicationFailure } from '@temporalio/workflow';
import { KEPT_CYCLES, AgentInputSchema, cycleRecordOf, keepLast } from '../../../../src/core/agent/agent';
import type { CycleInput, CycleResult } from '../../../../src/core/cycle/input';
import { totalCost, usageCost } from '../../../../src/core/cycle/cost';
import { KEPT_DIRECTIVES, reconcileDirectives } from '../../../../src/core/agent/directives';
import { ZERO_USAGE, mergeUsageByModel, totalUsage } from '../../../../src/core/cycle/model';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { AgentHome } from '../../../../src/workflows/agent/agent-home';
import { DeferredChanges } from '../../../../src/workflows/agent/deferred-changes';
import { resetWorkflowStub, settle, workflowStub } from '../../../helpers/workflow-stub';

jest.mock('@temporalio/workflow', () => jest.requireActual('../../../helpers/workflow-stub').workflowModule());

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

/** A child cycle the test ends when it chooses, with the signals it was sent. */
interface StubCycle {
  input: CycleInput & { cycleId: string };
  signals: string[];
  end(changes?: Partial<CycleResult>): void;
}

/** Answers each child `agentCycle` the home starts; the list grows as cycles start. */
function stubCycles(): StubCycle[] {
  const cycles: StubCycle[] = [];
  workflowStub.startChild.mockImplementation(async (_type: string, options: { args: [StubCycle['input']] }) => {
    const [input] = options.args;
    let resolve!: (result: CycleResult) => void;
    const result = new Promise<CycleResult>((settled) => (resolve = settled));
    const cycle: StubCycle = {
      input,
      signals: [],
      end: (changes = {}) =>
        resolve({
          agentId: input.agentId,
          cycleId: input.cycleId,
          outcome: 'completed',
          after: input.before,
          iterations: 1,
          usage: usage(7),
          usageByModel: { 'scripted:a': usage(7) },
          ...changes,
        }),
    };
    cycles.push(cycle);
    return { signal: async (_signal: unknown, text: string) => void cycle.signals.push(text), result: () => result };
  });
  return cycles;
}

function homeOf(input: Record<string, unknown> = {}): AgentHome {
  return new AgentHome(AgentInputSchema().parse({ agentId: 'a1', ...input }));
}

const lastMemo = () => workflowStub.memos.at(-1)?.scratchpad as ReturnType<typeof defaultScratchpad> | undefined;

describe('AgentHome, with no server', () => {
  beforeEach(resetWorkflowStub);

  it('starts by naming the agent, publishing its scratchpad, and queuing the wake a previous run handover', () => {
    const scratchpad = { ...defaultScratchpad(), current_task: 'handover task' };
    const handover = { cycleCount: 4, cycles: [], heldDirectives: ['h'], directiveLog: [], usageByModel: {}, runs: 2 };
    const home = homeOf({ scratchpad, handover });

    home.start(true);

    expect(workflowStub.searchAttributes).toEqual([{ key: expect.objectContaining({ name: 'AgentId' }), value: 'a1' }]);
    expect(lastMemo()).toEqual(scratchpad);
    expect(home.hasQueuedWork()).toBe(true);
    expect(home.status()).toMatchObject({ agentId: 'a1', cycleCount: 4, queued: 1, heldDirectives: ['h'], runs: 3 });
    const idle = homeOf();
    idle.start(true);
    expect(idle.hasQueuedWork()).toBe(false);
  });

  it('applies an enqueue at once while no cycle runs, and refuses one past the state cap with nothing changed', async () => {
    const home = homeOf();
    home.start(false);

    const queued = home.enqueue({ tasks: ['one', 'two'], goals: ['ship'] });
    await settle();
    await expect(queued).resolves.toEqual({ current_task: 'one', pending_actions: ['two'] });
    expect(lastMemo()).toMatchObject({ goals: ['ship'], current_task: 'one' });

    const tooMuch = home
      .enqueue({ tasks: Array.from({ length: 60 }, (_, n) => `${n}`.padEnd(5000, 'x')) })
      .catch((error: unknown) => error);
    await settle();
    const refusal = await tooMuch;
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect(refusal).toMatchObject({ type: 'AgentError.BadInput', nonRetryable: true });
    expect(home.scratchpad).toMatchObject({ current_task: 'one', pending_actions: ['two'] });
  });

  it('holds changes asked for while a cycle runs until its result, then applies them over it, in order', async () => {
    const cycles = stubCycles();
    const home = homeOf({ scratchpad: { ...defaultScratchpad(), current_task: 'work' } });
    home.start(true);
    const running = home.runNext(() => undefined);
    await settle();

    const injected = home.inject({ section: 'notes', content: 'from the user' });
    home.wake({ tasks: ['from a schedule'], trigger: 'schedule' });
    await settle();
    expect(home.scratchpad.notes).toBe('');
    expect(home.scratchpad.pending_actions).toEqual([]);
    cycles[0]?.end({ after: { ...defaultScratchpad(), current_task: 'next', notes: 'from the cycle' } });
    await running;
    await settle();

    await expect(injected).resolves.toBe('"from the user"');
    expect(home.scratchpad).toMatchObject({
      current_task: 'next',
      notes: 'from the user',
      pending_actions: ['from a schedule'],
    });
    expect(home.scratchpad.last_updated).not.toBeNull();
    expect(lastMemo()).toEqual(home.scratchpad);
    expect(home.hasQueuedWork()).toBe(true);
  });

  it('runs the oldest item as a child cycle and adopts its result: count, record, usage, search attributes', async () => {
    const cycles = stubCycles();
    const home = homeOf();
    home.start(false);
    const reply = home.send({ message: 'hello' });
    const running = home.runNext(() => undefined);
    await settle();

    expect(cycles[0]?.input).toMatchObject({ cycleId: 'agent/a1/cycle/1', kind: 'chat', message: 'hello' });
    expect(home.status().running).toEqual({ cycleId: 'agent/a1/cycle/1', trigger: 'chat' });
    cycles[0]?.end({ reply: 'hi there' });
    await running;
    await settle();

    await expect(reply).resolves.toEqual({ reply: 'hi there', cycleId: 'agent/a1/cycle/1', outcome: 'completed' });
    expect(home.cycles).toEqual([
      {
        cycleId: 'agent/a1/cycle/1',
        trigger: 'chat',
        outcome: 'completed',
        iterations: 1,
        usage: usage(7),
        directives: [],
        // The stub cycle ends with the memory it began with.
        memoryChanged: false,
      },
    ]);
    expect(home.status()).toMatchObject({
      cycleCount: 1,
      running: null,
      usage: usage(7),
      costUsd: 0,
      turnsSinceMemoryChanged: 1,
    });
    expect(workflowStub.searchAttributes.slice(-2).map((attribute) => [attribute.key.name, attribute.value])).toEqual([
      ['CycleCount', 1],
      ['LastOutcome', 'completed'],
    ]);
  });

  it('cancels the running cycle: the memory stays exactly as it was, the record and the waiting send say cancelled', async () => {
    const cycles = stubCycles();
    const before = { ...defaultScratchpad(), current_task: 'work', notes: 'as it was' };
    const home = homeOf({ scratchpad: before });
    home.start(false);
    const reply = home.send({ message: 'hello', model: 'scripted:turn' });
    const running = home.runNext(() => undefined);
    await settle();
    expect(cycles[0]?.input).toMatchObject({ kind: 'chat', model: 'scripted:turn' });

    const cancelled = home.cancelCycle({ cycleId: 'agent/a1/cycle/1' });
    await running;
    await settle();

    const record = { cycleId: 'agent/a1/cycle/1', trigger: 'chat', outcome: 'cancelled', iterations: 0 };
    await expect(cancelled).resolves.toMatchObject(record);
    await expect(reply).resolves.toEqual({ reply: '', cycleId: 'agent/a1/cycle/1', outcome: 'cancelled' });
    expect(home.scratchpad).toEqual(before);
    expect(home.cycles).toEqual([expect.objectContaining(record)]);
    expect(workflowStub.memos.at(-1)).toMatchObject({ scratchpad: before, status: { cycleCount: 1, running: null } });
    expect(workflowStub.searchAttributes.at(-1)).toMatchObject({ value: 'cancelled' });
    expect(() => home.cancelCycle({ cycleId: 'agent/a1/cycle/1' })).toThrow('does not run');
  });

  it('keeps its memory when a cycle cannot start, noting why', async () => {
    workflowStub.startChild.mockRejectedValue(new Error('no worker'));
    const home = homeOf({ scratchpad: { ...defaultScratchpad(), current_task: 'work' } });
    home.start(true);

    await home.runNext(() => undefined);

    expect(home.cycles[0]).toMatchObject({ outcome: 'failed', iterations: 0, error: 'no worker' });
    expect(home.scratchpad).toMatchObject({ current_task: 'work', notes: 'Cycle agent/a1/cycle/1 failed: no worker' });
  });

  it('hands a cycle at most its cap of held directives; the rest stay held, in order, for the next one', async () => {
    const cycles = stubCycles();
    const held = Array.from({ length: MAX_CYCLE_DIRECTIVES + 30 }, (_, index) => `d${index}`);
    const handover = { cycleCount: 0, cycles: [], heldDirectives: held, directiveLog: [], usageByModel: {}, runs: 0 };
    const home = homeOf({ scratchpad: { ...defaultScratchpad(), current_task: 'work' }, handover });
    home.start(true);

    const running = home.runNext(() => undefined);
    await settle();
    expect(cycles[0]?.input.directives).toEqual(held.slice(0, MAX_CYCLE_DIRECTIVES));
    cycles[0]?.end({ directives: held.slice(0, MAX_CYCLE_DIRECTIVES).map((text) => ({ text, iteration: 1 })) });
    await running;

    expect(home.heldDirectives).toEqual(held.slice(MAX_CYCLE_DIRECTIVES));
  });

  it('holds directives while idle, hands them to the next cycle, forwards those that come while it runs', async () => {
    const cycles = stubCycles();
    const home = homeOf({ scratchpad: { ...defaultScratchpad(), current_task: 'work' } });
    home.start(true);
    home.directive('held');
    home.directive('   ');
    home.directive(42);
    expect(home.heldDirectives).toEqual(['held']);

    const running = home.runNext(() => undefined);
    await settle();
    home.directive('forwarded');
    await settle();
    expect(cycles[0]?.input.directives).toEqual(['held']);
    expect(cycles[0]?.signals).toEqual(['forwarded']);
    cycles[0]?.end({ directives: [{ text: 'held', iteration: 1 }] });
    await running;

    expect(home.directiveLog).toEqual([{ text: 'held', cycleId: 'agent/a1/cycle/1' }]);
    expect(home.heldDirectives).toEqual(['forwarded']);
  });

  it('ignores a wake with bad arguments, and does not queue again a task already queued', async () => {
    const home = homeOf({ scratchpad: { ...defaultScratchpad(), current_task: 'daily report' } });
    home.start(false);

    home.wake({ tasks: 'not a list' });
    expect(workflowStub.warnings.map((warning) => warning.message)).toEqual([
      expect.stringMatching(/^dropped a wake signal: tasks: /),
    ]);
    expect(home.hasQueuedWork()).toBe(false);

    home.wake({ tasks: ['daily report', 'new'], trigger: 'schedule' });
    home.wake({ tasks: ['daily report', 'new'], trigger: 'schedule' });
    expect(home.scratchpad).toMatchObject({ current_task: 'daily report', pending_actions: ['new'] });
    expect(home.status().queued).toBe(1);
  });

  it('continues as new when the server suggests it or after its cycles per run, carrying memory and queue', async () => {
    const cycles = stubCycles();
    const home = homeOf({
      settings: { continueAsNewEvery: 1 },
      scratchpad: { ...defaultScratchpad(), current_task: 'w' },
    });
    home.start(true);
    expect(home.shouldContinueAsNew()).toBe(false);
    workflowStub.info.continueAsNewSuggested = true;
    expect(home.shouldContinueAsNew()).toBe(true);
    workflowStub.info.continueAsNewSuggested = false;

    const running = home.runNext(() => undefined);
    await settle();
    cycles[0]?.end();
    await running;
    home.wake({});

    expect(home.shouldContinueAsNew()).toBe(true);
    expect(home.queue.canHandOver()).toBe(true);
    expect(home.handover()).toMatchObject({
      agentId: 'a1',
      scratchpad: { current_task: 'w' },
      settings: { continueAsNewEvery: 1 },
      handover: { cycleCount: 1, runs: 1, pendingWake: true, usageByModel: { 'scripted:a': usage(7) } },
    });
    void home.send({ message: 'waits for an answer' });
    expect(home.queue.canHandOver()).toBe(false);
  });
});

describe('DeferredChanges', () => {
  beforeEach(resetWorkflowStub);

  it('applies and publishes at once when no cycle runs; otherwise waits, then applies in the order asked', async () => {
    let running = true;
    const applied: string[] = [];
    const persist = jest.fn();
    const changes = new DeferredChanges(() => running, persist);

    changes.apply(() => applied.push('first'));
    const answer = changes.applied(() => (applied.push('second'), 'answered'));
    await settle();
    expect(applied).toEqual([]);
    running = false;
    changes.release();
    await settle();

    await expect(answer).resolves.toBe('answered');
    expect(applied).toEqual(['first', 'second']);
    expect(persist).not.toHaveBeenCalled();
    changes.apply(() => applied.push('third'));
    expect(applied).toEqual(['first', 'second', 'third']);
    expect(persist).toHaveBeenCalledTimes(1);
  });
});
