import type { Author, Draft } from '../../../../src/core/research/board';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';
import { ResearchInputSchema, initialStrategy } from '../../../../src/core/research/run';
import { RefusedWrite, ResearchRun } from '../../../../src/workflows/research/research-run';

const URL_A = 'http://127.0.0.1:1/a';
const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const input = ResearchInputSchema().parse({
  runId: 'r1',
  question: 'Revenue and employees of Acme?',
  entities: ['Acme'],
  fields: ['revenue', 'employees'],
});
const workerId = (n: number) => `w${n}`;
const alice: Author = { role: 'user', id: 'alice' };
const w1: Author = { role: 'worker', id: 'w1' };
const strategy: Draft = { type: 'STRATEGY', body: initialStrategy(input, workerId) };
const directive = (text: string): Draft => ({ type: 'USER_DIRECTIVE', body: { text } });
const claim: Draft = { type: 'PENDING', body: { entity: 'Acme', field: 'revenue', assignedTo: 'w1' } };
const verified: Draft = {
  type: 'VERIFIED',
  body: {
    entity: 'Acme',
    field: 'revenue',
    value: '1,234',
    sourceUrl: URL_A,
    retrievedBy: 'w1',
    evidence: { step: 1 },
  },
};
const usage = (inputTokens: number) => ({ ...ZERO_USAGE, inputTokens });

/** A run past its first STRATEGY with worker w1 running. */
function started(): ResearchRun {
  const run = new ResearchRun(input, 'research/r1', NOW);
  run.appendAsSupervisor(strategy, NOW);
  run.active.add('w1');
  run.spawned.add('w1');
  return run;
}

describe('ResearchRun: the write validator', () => {
  it.each<[string, unknown, string]>([
    ['a malformed author', { author: { role: 'admin', id: 'x' }, draft: claim }, 'invalid author'],
    ['the supervisor, from outside its run', { author: { role: 'supervisor', id: 'x' }, draft: claim }, '[origin]'],
    ['a worker that is not running', { author: { role: 'worker', id: 'w9' }, draft: claim }, 'not a running worker'],
    ['an unknown entry type', { author: w1, draft: { type: 'FACT', body: {} } }, 'invalid FACT entry'],
    [
      'a body with an extra field',
      { author: w1, draft: { ...claim, body: { ...claim.body, x: 1 } } },
      'invalid PENDING',
    ],
    ['usage from a user', { author: alice, draft: directive('hi'), usageByModel: {} }, 'only a worker reports usage'],
    ['a board rule', { author: w1, draft: verified }, '[transition]'],
  ])('refuses %s, naming why, and leaves the board as it was', (_name, request, reason) => {
    const run = started();

    expect(() => run.validate(request as never)).toThrow(RefusedWrite);
    expect(() => run.validate(request as never)).toThrow(reason);
    expect(run.entries).toHaveLength(1);
  });

  it('accepts a running worker claiming its fact, parsed, without appending it', () => {
    const run = started();

    expect(run.validate({ author: w1, draft: { ...claim, body: { ...claim.body, entity: ' Acme ' } } })).toEqual({
      author: w1,
      draft: claim,
    });
    expect(run.entries).toHaveLength(1);
  });
});

describe('ResearchRun: appending', () => {
  it('gives each entry the next id, the turn and the time, and marks the run dirty', () => {
    const run = started();
    run.turn = 3;
    run.dirty = false;

    const entry = run.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim }, NOW + 1000);

    expect(entry).toEqual({
      id: 'e2',
      type: 'PENDING',
      author: w1,
      turn: 3,
      createdAt: '2026-01-01T00:00:01.000Z',
      body: claim.body,
    });
    expect(run.dirty).toBe(true);
    expect(run.active.has('w1')).toBe(true);
  });

  it("ends a worker's investigation with its result, not its claim", () => {
    const run = started();
    run.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim }, NOW);

    run.appendWrite({ author: w1, draft: verified }, { author: w1, draft: verified }, NOW);

    expect(run.active.has('w1')).toBe(false);
    expect(run.spawned.has('w1')).toBe(true);
  });

  it('numbers re-delegated workers after those STRATEGY assigned', () => {
    const run = new ResearchRun(input, 'research/r1', NOW);
    expect(run.nextWorker).toBe(1);

    run.appendAsSupervisor(strategy, NOW);

    expect(run.nextWorker).toBe(3);
  });

  it('fails the workflow, not the task, on an entry the rules refuse, and appends nothing', () => {
    const run = started();

    expect(() => run.appendAsSupervisor(claim, NOW)).toThrow(
      expect.objectContaining({ type: 'Research.RefusedWrite', nonRetryable: true }),
    );
    expect(run.entries).toHaveLength(1);
  });
});

describe('ResearchRun: user directives', () => {
  it('holds one that comes while the supervisor plans, and lands it right after the first STRATEGY', () => {
    const run = new ResearchRun(input, 'research/r1', NOW);

    run.directive(alice, directive('prefer annual reports'), NOW);
    expect(run.entries).toEqual([]);
    run.appendAsSupervisor(strategy, NOW + 5);

    expect(run.entries.map((entry) => entry.type)).toEqual(['STRATEGY', 'USER_DIRECTIVE']);
    expect(run.entries[1]).toMatchObject({ author: alice, body: { text: 'prefer annual reports' } });
    run.appendAsSupervisor({ type: 'STRATEGY', body: { ...strategy.body, goal: 'revised' } }, NOW);
    expect(run.entries.filter((entry) => entry.type === 'USER_DIRECTIVE')).toHaveLength(1);
  });

  it('appends one that comes once STRATEGY is written', () => {
    const run = started();

    run.directive(alice, directive('be quick'), NOW);

    expect(run.entries.at(-1)).toMatchObject({ type: 'USER_DIRECTIVE', author: alice, body: { text: 'be quick' } });
  });

  it('drops one that comes after the run has its SYNTHESIS, and one to a run that ended unplanned', () => {
    const closed = started();
    closed.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim }, NOW);
    closed.appendWrite({ author: w1, draft: verified }, { author: w1, draft: verified }, NOW);
    const w2: Author = { role: 'worker', id: 'w2' };
    const claim2: Draft = { type: 'PENDING', body: { entity: 'Acme', field: 'employees', assignedTo: 'w2' } };
    const verified2 = { ...verified, body: { ...verified.body, field: 'employees', retrievedBy: 'w2' } } as Draft;
    closed.active.add('w2');
    closed.appendWrite({ author: w2, draft: claim2 }, { author: w2, draft: claim2 }, NOW);
    closed.appendWrite({ author: w2, draft: verified2 }, { author: w2, draft: verified2 }, NOW);
    closed.appendAsSupervisor({ type: 'SYNTHESIS', body: { answer: 'done', citations: ['e3', 'e5'] } }, NOW);
    const unplanned = new ResearchRun(input, 'research/r1', NOW);
    unplanned.finish('incomplete');

    expect(() => closed.directive(alice, directive('too late'), NOW)).not.toThrow();
    unplanned.directive(alice, directive('too late'), NOW);
    unplanned.appendAsSupervisor(strategy, NOW);

    expect(closed.entries.map((entry) => entry.type)).not.toContain('USER_DIRECTIVE');
    expect(unplanned.entries.map((entry) => entry.type)).toEqual(['STRATEGY']);
  });
});

describe('ResearchRun: usage', () => {
  it("counts a worker's usage from the write that ends its investigation, once, and the supervisor's planning calls", () => {
    const run = started();
    run.countUsage('scripted:planner', usage(10));

    // A claim does not end the investigation: usage riding it is not counted.
    run.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim, usageByModel: { x: usage(99) } }, NOW);
    run.appendWrite(
      { author: w1, draft: verified },
      { author: w1, draft: verified, usageByModel: { 'claude-sonnet-4-6': usage(1_000_000) } },
      NOW,
    );

    expect(run.usage.usage).toEqual(usage(1_000_010));
    expect(run.usage.usageByModel).toEqual({ 'scripted:planner': usage(10), 'claude-sonnet-4-6': usage(1_000_000) });
    expect(run.usage.costUsd).toBeCloseTo(3);
  });

  it('refuses a forged report of absurd usage in the validator, and hands over which workers it counted', () => {
    const run = started();
    run.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim }, NOW);
    const forged = { author: w1, draft: verified, usageByModel: { x: usage(1e12), y: usage(1e12) } };

    expect(() => run.validate(forged)).toThrow(/invalid usage on a worker's VERIFIED write: usage of 2000000000000/);
    run.appendWrite(
      { author: w1, draft: verified },
      { author: w1, draft: verified, usageByModel: { m: usage(5) } },
      NOW,
    );

    expect(run.usage.usage).toEqual(usage(5));
    expect(run.handover().usageCounted).toEqual(['w1']);
  });
});

describe('ResearchRun: continue-as-new', () => {
  it('carries the board, the workers, the counters and the usage into the next run, one generation on', () => {
    const run = started();
    run.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim }, NOW);
    run.directive(alice, directive('be quick'), NOW);
    run.directivesRead = 1;
    run.nextWorker = 5;
    run.countUsage('scripted:planner', usage(7));

    const next = new ResearchRun(input, 'research/r1', NOW + 60_000, run.handover());

    expect(next.entries).toEqual(run.entries);
    expect([...next.active]).toEqual(['w1']);
    expect([...next.spawned]).toEqual(['w1']);
    // The mirror had caught up with nothing: the next run mirrors from the first entry.
    expect(next).toMatchObject({ nextWorker: 5, directivesRead: 1, startedAt: NOW, generation: 1, mirrored: 0 });
    expect(next.usage.usageByModel).toEqual({ 'scripted:planner': usage(7) });
    expect(next.strategy?.id).toBe('e1');
  });

  it('reports its status, and what is missing as it stood when it finished', () => {
    const run = started();
    run.appendWrite({ author: w1, draft: claim }, { author: w1, draft: claim }, NOW);

    expect(run.status()).toMatchObject({
      runId: 'r1',
      outcome: 'running',
      facts: [
        { entity: 'Acme', field: 'revenue', state: 'PENDING', entryId: 'e2' },
        { entity: 'Acme', field: 'employees', state: 'ASSIGNED' },
      ],
      activeWorkers: ['w1'],
      workersStarted: 1,
      entries: 2,
      missing: ['Acme / revenue: PENDING', 'Acme / employees: ASSIGNED'],
    });
    run.finish('incomplete');
    run.appendWrite({ author: w1, draft: verified }, { author: w1, draft: verified }, NOW);
    expect(run.status()).toMatchObject({
      outcome: 'incomplete',
      missing: ['Acme / revenue: PENDING', 'Acme / employees: ASSIGNED'],
    });
  });
});
