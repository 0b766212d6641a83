import {
  type Author,
  BOARD_LIMITS,
  type BoardEntry,
  type Draft,
  checkWrite,
  latestStrategy,
} from '../../../../src/core/research/board';
import { strategyOf, workerGoal } from '../../../../src/core/research/run';
import {
  type SchedulingOptions,
  type SchedulingState,
  type SchedulingStep,
  TOMBSTONED_SEARCH_HINT,
  evaluationSteps,
  planEvaluation,
} from '../../../../src/core/research/scheduling';

const URL_A = 'http://127.0.0.1:1/a';
const supervisor: Author = { role: 'supervisor', id: 'sup' };
const user: Author = { role: 'user', id: 'alice' };
const worker = (id: string): Author => ({ role: 'worker', id });
const workerId = (n: number) => `w${n}`;
const options: SchedulingOptions = { question: 'Acme?', maxWorkers: 4, maxAttemptsPerFact: 3, workerId };

/** A board of legal entries only: each write is checked against the board's rules as it stands. */
function boardOf(...writes: [Author, Draft][]): BoardEntry[] {
  const entries: BoardEntry[] = [];
  for (const [author, draft] of writes) {
    const verdict = checkWrite(entries, author, draft);
    if (!verdict.ok) throw new Error(`test board: ${verdict.reason}`);
    const id = `e${entries.length + 1}`;
    entries.push({ id, author, turn: 1, createdAt: '2026-01-01T00:00:00.000Z', ...draft } as BoardEntry);
  }
  return entries;
}

const strategy = (...fields: string[]): [Author, Draft] => [
  supervisor,
  { type: 'STRATEGY', body: strategyOf({ goal: 'Acme?', entities: ['Acme'], fields }, workerId) },
];
const claim = (field: string, id: string): [Author, Draft] => [
  worker(id),
  { type: 'PENDING', body: { entity: 'Acme', field, assignedTo: id } },
];
const delegated = (field: string, id: string): [Author, Draft] => [
  supervisor,
  { type: 'PENDING', body: { entity: 'Acme', field, assignedTo: id } },
];
const unverified = (field: string, id: string): [Author, Draft] => [
  worker(id),
  { type: 'UNVERIFIED', body: { entity: 'Acme', field, claimedValue: '9', reason: 'not on the page' } },
];
const verified = (field: string, id: string): [Author, Draft] => [
  worker(id),
  {
    type: 'VERIFIED',
    body: { entity: 'Acme', field, value: '1,234', sourceUrl: URL_A, retrievedBy: id, evidence: { step: 1 } },
  },
];
const failed = (field: string, id: string): [Author, Draft] => [
  worker(id),
  { type: 'FAILED_URL', body: { entity: 'Acme', field, url: URL_A, failureReason: 'HTTP 404', triedBy: id } },
];
const directive = (text: string): [Author, Draft] => [user, { type: 'USER_DIRECTIVE', body: { text } }];

/** A run's state: nothing started, directives unread, worker numbers after the STRATEGY's. */
function stateOf(entries: BoardEntry[], changes: Partial<Omit<SchedulingState, 'entries'>> = {}): SchedulingState {
  const nextWorker = (latestStrategy(entries)?.body.assigned.length ?? 0) + 1;
  return { entries, active: new Set(), spawned: new Set(), nextWorker, directivesRead: 0, ...changes };
}

/** One line per step, so a table row reads as what the supervisor does. */
function summary(step: SchedulingStep): string {
  switch (step.kind) {
    case 'revise':
      return `revise STRATEGY: ${step.draft.body.directives.join('; ')} (read ${step.directivesRead})`;
    case 'tombstone':
      return `tombstone ${step.draft.body.field} ${step.draft.body.url}`;
    case 'spawn':
      return `spawn ${step.worker.workerId} on ${step.worker.field}, attempt ${step.worker.attempt}`;
    case 'delegate': {
      const { body } = step.draft;
      const hint = body.searchHint ? `, hint "${body.searchHint}"` : '';
      return `delegate ${body.field} to ${body.assignedTo}, attempt ${step.worker.attempt}${hint}`;
    }
    case 'finish':
      return step.outcome === 'complete'
        ? `finish complete, citing ${step.synthesis.body.citations}`
        : 'finish incomplete';
  }
}

const running = (...ids: string[]) => ({ active: new Set(ids), spawned: new Set(ids) });

const ROWS: [string, SchedulingState, Partial<SchedulingOptions>, string[]][] = [
  [
    'an ASSIGNED fact: its STRATEGY worker is spawned',
    stateOf(boardOf(strategy('revenue'))),
    {},
    ['spawn w1 on revenue, attempt 1'],
  ],
  [
    'an ASSIGNED fact whose worker started and has not claimed yet: nothing',
    stateOf(boardOf(strategy('revenue')), running('w1')),
    {},
    [],
  ],
  [
    'a new directive: read into STRATEGY',
    stateOf(boardOf(strategy('revenue'), claim('revenue', 'w1'), directive('prefer annual reports')), running('w1')),
    {},
    ['revise STRATEGY: prefer annual reports (read 1)'],
  ],
  [
    'a directive already read: not read again',
    stateOf(boardOf(strategy('revenue'), claim('revenue', 'w1'), directive('prefer annual reports')), {
      ...running('w1'),
      directivesRead: 1,
    }),
    {},
    [],
  ],
  [
    'FAILED_URL: tombstoned at once, the running workers told, and the fact re-delegated with a new search',
    stateOf(
      boardOf(
        strategy('revenue', 'employees'),
        claim('revenue', 'w1'),
        claim('employees', 'w2'),
        failed('revenue', 'w1'),
      ),
      { active: new Set(['w2']), spawned: new Set(['w1', 'w2']) },
    ),
    {},
    [`tombstone revenue ${URL_A}`, `delegate revenue to w3, attempt 2, hint "${TOMBSTONED_SEARCH_HINT}"`],
  ],
  [
    'UNVERIFIED: re-delegated to a worker that has not held it, with no hint',
    stateOf(boardOf(strategy('revenue'), claim('revenue', 'w1'), unverified('revenue', 'w1')), {
      spawned: new Set(['w1']),
    }),
    {},
    ['delegate revenue to w2, attempt 2'],
  ],
  [
    'attempts per fact spent while another worker runs: stalled, the run goes on',
    stateOf(
      boardOf(
        strategy('revenue', 'employees'),
        claim('revenue', 'w1'),
        unverified('revenue', 'w1'),
        claim('employees', 'w2'),
      ),
      { active: new Set(['w2']), spawned: new Set(['w1', 'w2']) },
    ),
    { maxAttemptsPerFact: 1 },
    [],
  ],
  [
    'attempts per fact spent and nothing running: incomplete',
    stateOf(
      boardOf(
        strategy('revenue'),
        claim('revenue', 'w1'),
        unverified('revenue', 'w1'),
        delegated('revenue', 'w2'),
        unverified('revenue', 'w2'),
      ),
      { spawned: new Set(['w1', 'w2']), nextWorker: 3 },
    ),
    { maxAttemptsPerFact: 2 },
    ['finish incomplete'],
  ],
  [
    'a claim whose worker ended without writing, nothing else running: incomplete',
    stateOf(boardOf(strategy('revenue'), claim('revenue', 'w1')), { spawned: new Set(['w1']) }),
    {},
    ['finish incomplete'],
  ],
  [
    'stalled, but this evaluation wrote to the board: not finished yet',
    stateOf(boardOf(strategy('revenue'), claim('revenue', 'w1'), directive('be quick')), { spawned: new Set(['w1']) }),
    {},
    ['revise STRATEGY: be quick (read 1)'],
  ],
  [
    'maxWorkers reached: spawning stops, and nothing is decided after it',
    stateOf(boardOf(strategy('revenue', 'employees', 'founded'))),
    { maxWorkers: 2 },
    ['spawn w1 on revenue, attempt 1', 'spawn w2 on employees, attempt 1'],
  ],
  [
    'maxWorkers taken by running workers: no re-delegation',
    stateOf(
      boardOf(
        strategy('revenue', 'employees'),
        claim('revenue', 'w1'),
        unverified('revenue', 'w1'),
        claim('employees', 'w2'),
      ),
      { active: new Set(['w2']), spawned: new Set(['w1', 'w2']) },
    ),
    { maxWorkers: 1 },
    [],
  ],
  [
    'every fact VERIFIED: SYNTHESIS citing them, and complete',
    stateOf(
      boardOf(
        strategy('revenue', 'employees'),
        claim('revenue', 'w1'),
        verified('revenue', 'w1'),
        claim('employees', 'w2'),
        verified('employees', 'w2'),
      ),
      { spawned: new Set(['w1', 'w2']) },
    ),
    {},
    ['finish complete, citing e3,e5'],
  ],
  ['no STRATEGY yet: nothing', stateOf([]), {}, []],
];

describe('the supervisor scheduling: one row per decision', () => {
  it.each(ROWS)('%s', (_name, state, changes, expected) => {
    expect(planEvaluation(state, { ...options, ...changes }).map(summary)).toEqual(expected);
  });

  it('revises STRATEGY with the directives new since the last one; workers spawned from now on are briefed with them', () => {
    const entries = boardOf(strategy('revenue'), directive('first'), claim('revenue', 'w1'), directive('second'));
    const [step] = planEvaluation(stateOf(entries, { ...running('w1'), directivesRead: 1 }), options);

    expect(step).toMatchObject({ kind: 'revise', directivesRead: 2 });
    if (step?.kind !== 'revise') return;
    expect(step.draft.body.directives).toEqual(['second']);
    expect(step.draft.body.goal).toBe('Acme?');
    expect(step.draft.body.assigned).toEqual([{ entity: 'Acme', field: 'revenue', worker: 'w1' }]);
    const revised = boardOf(strategy('revenue'), directive('first'), [supervisor, step.draft]);
    expect(workerGoal(revised, 'Acme?')).toBe('Acme?\nDirectives:\n- second');
  });

  it('records each directive in one STRATEGY only, however many revisions follow', () => {
    const entries = boardOf(strategy('revenue'), claim('revenue', 'w1'));
    const push = ([author, draft]: [Author, Draft]) =>
      entries.push({ id: `e${entries.length + 1}`, author, turn: 1, createdAt: '', ...draft } as BoardEntry);
    let directivesRead = 0;
    for (const text of ['one', 'two', 'three']) {
      push(directive(text));
      const [step] = planEvaluation(stateOf(entries, { ...running('w1'), directivesRead }), options);
      if (step?.kind !== 'revise') throw new Error(`expected a revision, got ${step?.kind}`);
      push([supervisor, step.draft]);
      directivesRead = step.directivesRead;
    }

    const strategies = entries.filter((entry) => entry.type === 'STRATEGY');
    expect(strategies.map((entry) => (entry.type === 'STRATEGY' ? entry.body.directives : []))).toEqual([
      [],
      ['one'],
      ['two'],
      ['three'],
    ]);
    expect(new Set(strategies.map((entry) => (entry.type === 'STRATEGY' ? entry.body.goal : '')))).toEqual(
      new Set(['Acme?']),
    );
    expect(workerGoal(entries, 'Acme?')).toBe('Acme?\nDirectives:\n- one\n- two\n- three');
  });

  it('reads at most a STRATEGY list of directives at once; the rest at the next evaluation', () => {
    const many = Array.from({ length: BOARD_LIMITS.list + 6 }, (_, index) => directive(`d${index}`));
    const entries = boardOf(strategy('revenue'), claim('revenue', 'w1'), ...many);
    const [step] = planEvaluation(stateOf(entries, running('w1')), options);

    expect(step).toMatchObject({ kind: 'revise', directivesRead: BOARD_LIMITS.list });
    if (step?.kind !== 'revise') return;
    expect(step.draft.body.directives).toHaveLength(BOARD_LIMITS.list);
    const [next] = planEvaluation(stateOf(entries, { ...running('w1'), directivesRead: BOARD_LIMITS.list }), options);
    expect(next).toMatchObject({ kind: 'revise', directivesRead: BOARD_LIMITS.list + 6 });
  });

  it('briefs workers with the newest directives that fit the goal cap', () => {
    const long = (n: number) => `${n}`.padEnd(600, '.');
    const read = [1, 2, 3, 4].map(long);
    const body = {
      ...strategyOf({ goal: 'Acme?', entities: ['Acme'], fields: ['revenue'] }, workerId),
      directives: read,
    };
    const entries = boardOf(strategy('revenue'), [supervisor, { type: 'STRATEGY', body }]);

    const goal = workerGoal(entries, 'Acme?');

    expect(goal.length).toBeLessThanOrEqual(BOARD_LIMITS.text);
    expect(goal).toBe(
      `Acme?\nDirectives:\n${read
        .slice(1)
        .map((text) => `- ${text}`)
        .join('\n')}`,
    );
  });

  it('re-delegates under the next worker number, and counts on from it', () => {
    const entries = boardOf(
      strategy('revenue', 'employees'),
      claim('revenue', 'w1'),
      unverified('revenue', 'w1'),
      claim('employees', 'w2'),
      unverified('employees', 'w2'),
    );
    const steps = planEvaluation(stateOf(entries, { spawned: new Set(['w1', 'w2']), nextWorker: 7 }), options);

    expect(steps.map(summary)).toEqual(['delegate revenue to w7, attempt 2', 'delegate employees to w8, attempt 2']);
    expect(steps.map((step) => (step.kind === 'delegate' ? step.nextWorker : undefined))).toEqual([8, 9]);
    expect(steps[0]).toMatchObject({
      kind: 'delegate',
      draft: { type: 'PENDING', body: { entity: 'Acme', field: 'revenue', assignedTo: 'w7' } },
      worker: { entity: 'Acme', field: 'revenue', workerId: 'w7', delegated: true, attempt: 2 },
    });
  });

  it('tombstones the URL that failed and passes its reason on', () => {
    const entries = boardOf(strategy('revenue'), claim('revenue', 'w1'), failed('revenue', 'w1'));
    const [step] = planEvaluation(stateOf(entries, { spawned: new Set(['w1']) }), options);

    expect(step).toEqual({
      kind: 'tombstone',
      draft: {
        type: 'TOMBSTONE',
        body: { entity: 'Acme', field: 'revenue', url: URL_A, failureReason: 'HTTP 404', permanent: true },
      },
    });
  });

  it('leaves the state it was given unchanged', () => {
    const state = stateOf(boardOf(strategy('revenue', 'employees')));
    const before = { ...state, entries: [...state.entries], active: [...state.active], spawned: [...state.spawned] };

    expect(planEvaluation(state, options)).toHaveLength(2);
    expect({ ...state, active: [...state.active], spawned: [...state.spawned] }).toEqual(before);
  });

  it('reads the running workers afresh after each start: a worker that ended meanwhile frees its place', () => {
    const entries = boardOf(strategy('revenue', 'employees'));
    const view = { ...stateOf(entries), active: new Set<string>(), spawned: new Set<string>(), dirty: false };
    const steps = evaluationSteps(view, { ...options, maxWorkers: 1 });

    const first = steps.next().value;
    expect(first && summary(first)).toBe('spawn w1 on revenue, attempt 1');
    view.active.add('w1');
    view.spawned.add('w1');
    // While the supervisor waited for w1 to start, w1's investigation already ended: its place is free again.
    view.active.delete('w1');
    view.dirty = true;
    const second = steps.next().value;
    expect(second && summary(second)).toBe('spawn w2 on employees, attempt 1');
    expect(planEvaluation(stateOf(entries), { ...options, maxWorkers: 1 }).map(summary)).toEqual([
      'spawn w1 on revenue, attempt 1',
    ]);
  });
});
