import {
  type Author,
  type BoardEntry,
  checkWrite,
  type Draft,
  DraftSchema,
  ENTRY_TYPES,
  type EntryType,
  FACT_STATES,
  type FactState,
  factState,
  normaliseEvidence,
  ROLES,
  type Role,
  valueOccursIn,
} from '../../../../src/core/research/board';

const URL_A = 'http://127.0.0.1:1/a';
const fact = { entity: 'Acme', field: 'revenue' };
let next = 0;
function entry(author: Author, draft: Draft): BoardEntry {
  next += 1;
  return { id: `e${next}`, author, turn: next, createdAt: '2026-01-01T00:00:00.000Z', ...draft } as BoardEntry;
}
const supervisor: Author = { role: 'supervisor', id: 'sup' };
const w1: Author = { role: 'worker', id: 'w1' };
const strategy = entry(supervisor, {
  type: 'STRATEGY',
  body: {
    goal: 'revenue of Acme',
    entities: ['Acme'],
    fields: ['revenue'],
    toolChain: ['web_search', 'web_fetch'],
    assigned: [{ ...fact, worker: 'w1' }],
    directives: [],
  },
});
const pending = entry(w1, { type: 'PENDING', body: { ...fact, assignedTo: 'w1' } });
const verified = entry(w1, {
  type: 'VERIFIED',
  body: { ...fact, value: '1,234', sourceUrl: URL_A, retrievedBy: 'w1', evidence: { step: 2 } },
});
const unverified = entry(w1, { type: 'UNVERIFIED', body: { ...fact, claimedValue: '9', reason: 'not on page' } });
const failed = entry(w1, {
  type: 'FAILED_URL',
  body: { ...fact, url: URL_A, failureReason: 'HTTP 404', triedBy: 'w1' },
});
const tombstone = entry(supervisor, {
  type: 'TOMBSTONE',
  body: { ...fact, url: URL_A, failureReason: 'HTTP 404', permanent: true },
});

const BOARDS: Record<FactState, BoardEntry[]> = {
  UNKNOWN: [],
  ASSIGNED: [strategy],
  PENDING: [strategy, pending],
  VERIFIED: [strategy, pending, verified],
  UNVERIFIED: [strategy, pending, unverified],
  FAILED_URL: [strategy, pending, failed],
  TOMBSTONE: [strategy, pending, failed, tombstone],
};

const AUTHORS: Record<Role, Author> = { supervisor, worker: w1, user: { role: 'user', id: 'alice' } };

function draftFor(type: EntryType, role: Role, board: BoardEntry[]): Draft {
  const holder = role === 'worker' ? 'w1' : 'w2';
  const bodies: Record<EntryType, unknown> = {
    STRATEGY: strategy.body,
    PENDING: { ...fact, assignedTo: holder },
    VERIFIED: { ...fact, value: '1,234', sourceUrl: 'http://127.0.0.1:1/b', retrievedBy: 'w1', evidence: { step: 1 } },
    UNVERIFIED: { ...fact, claimedValue: '1', reason: 'no source' },
    FAILED_URL: { ...fact, url: URL_A, failureReason: 'dead', triedBy: 'w1' },
    TOMBSTONE: { ...fact, url: URL_A, failureReason: 'dead', permanent: true },
    USER_DIRECTIVE: { text: 'prefer annual reports' },
    SYNTHESIS: {
      answer: 'Acme revenue is 1,234 [e3]',
      citations: [[...board].reverse().find((e) => e.type === 'VERIFIED')?.id ?? 'e3'],
    },
  };
  return DraftSchema().parse({ type, body: bodies[type] }) as Draft;
}

// The seed's diagram and permissions note, written out independently of the rules under test.
const ALLOWED = new Set([
  ...FACT_STATES.map((state) => `supervisor STRATEGY ${state}`),
  ...FACT_STATES.filter((state) => state !== 'UNKNOWN').map((state) => `user USER_DIRECTIVE ${state}`),
  'worker PENDING ASSIGNED',
  'worker VERIFIED PENDING',
  'worker UNVERIFIED PENDING',
  'worker FAILED_URL PENDING',
  'supervisor PENDING UNVERIFIED',
  'supervisor TOMBSTONE FAILED_URL',
  'supervisor PENDING TOMBSTONE',
  'supervisor SYNTHESIS VERIFIED',
]);

const CASES = ROLES.flatMap((role) =>
  ENTRY_TYPES.flatMap((type) => FACT_STATES.map((state) => [role, type, state] as [Role, EntryType, FactState])),
);

describe('board rules: every (role, entry type, current state)', () => {
  it('covers 3 roles × 8 types × 7 states', () => {
    expect(CASES).toHaveLength(168);
    for (const state of FACT_STATES) {
      if (state !== 'UNKNOWN') expect(factState(BOARDS[state], 'Acme', 'revenue')).toBe(state);
    }
  });

  it.each(CASES)('%s writing %s when the fact is %s', (role, type, state) => {
    const board = BOARDS[state];
    const verdict = checkWrite(board, AUTHORS[role], draftFor(type, role, board));
    if (ALLOWED.has(`${role} ${type} ${state}`)) {
      expect(verdict).toEqual({ ok: true });
    } else {
      expect(verdict.ok).toBe(false);
      if (verdict.ok) return;
      expect(verdict.reason).toContain(role);
      expect(verdict.reason).toContain(type);
      expect(verdict.reason).toContain(`[${verdict.rule}]`);
    }
  });
});

describe('board rules: forged and out-of-order writes', () => {
  const w2: Author = { role: 'worker', id: 'w2' };
  it("refuses a worker writing another worker's fact", () => {
    const draft = draftFor('VERIFIED', 'worker', BOARDS.PENDING);
    const forged = { ...draft, body: { ...draft.body, retrievedBy: 'w2' } } as Draft;
    expect(checkWrite(BOARDS.PENDING, w2, forged)).toMatchObject({ ok: false, rule: 'assignment' });
    expect(checkWrite(BOARDS.ASSIGNED, w2, { type: 'PENDING', body: { ...fact, assignedTo: 'w2' } })).toMatchObject({
      ok: false,
      rule: 'assignment',
    });
  });
  it('refuses re-delegating to a worker that already held the fact', () => {
    const draft: Draft = { type: 'PENDING', body: { ...fact, assignedTo: 'w1' } };
    expect(checkWrite(BOARDS.UNVERIFIED, supervisor, draft)).toMatchObject({ ok: false, rule: 'new worker' });
  });
  it('refuses VERIFIED citing a tombstoned URL', () => {
    const board = [...BOARDS.TOMBSTONE, entry(supervisor, { type: 'PENDING', body: { ...fact, assignedTo: 'w2' } })];
    const draft = draftFor('VERIFIED', 'worker', board);
    const tomb = { ...draft, body: { ...draft.body, sourceUrl: URL_A, retrievedBy: 'w2' } } as Draft;
    expect(checkWrite(board, w2, tomb)).toMatchObject({ ok: false, rule: 'tombstone' });
  });
  it('gates SYNTHESIS: citations must be current VERIFIED ids, and nothing is accepted after it', () => {
    const synthesis = { type: 'SYNTHESIS', body: { answer: 'x', citations: [pending.id] } } as Draft;
    expect(checkWrite(BOARDS.VERIFIED, supervisor, synthesis)).toMatchObject({ ok: false, rule: 'citations' });
    expect(checkWrite(BOARDS.PENDING, supervisor, draftFor('SYNTHESIS', 'supervisor', BOARDS.PENDING))).toMatchObject({
      ok: false,
      rule: 'gate',
      reason: expect.stringContaining('1 PENDING'),
    });
    const closed = [...BOARDS.VERIFIED, entry(supervisor, draftFor('SYNTHESIS', 'supervisor', BOARDS.VERIFIED))];
    const directive = draftFor('USER_DIRECTIVE', 'user', closed);
    expect(checkWrite(closed, AUTHORS.user, directive)).toMatchObject({ ok: false, rule: 'closed' });
  });
  it('refuses a STRATEGY revision that drops a fact', () => {
    const draft = { type: 'STRATEGY', body: { ...strategy.body, entities: ['Other'], assigned: [] } } as Draft;
    expect(checkWrite(BOARDS.PENDING, supervisor, draft)).toMatchObject({ ok: false, rule: 'keeps facts' });
  });
  it('rejects drafts with unknown types, extra fields or oversize values at the schema', () => {
    expect(DraftSchema().safeParse({ type: 'FACT', body: {} }).success).toBe(false);
    expect(DraftSchema().safeParse({ type: 'USER_DIRECTIVE', body: { text: 'x', role: 'supervisor' } }).success).toBe(
      false,
    );
    expect(DraftSchema().safeParse({ type: 'USER_DIRECTIVE', body: { text: 'x'.repeat(5000) } }).success).toBe(false);
  });
});

describe('evidence rule', () => {
  it.each([
    ['Revenue: USD 1,234,567 in 2025', '1234567', true],
    ['Revenue: USD 1 234 567 in 2025', '1,234,567', true],
    ['Founded in\n  1999   by   Ada', 'IN 1999 BY ada', true],
    ['Revenue: 1,234,567', '1,234,568', false],
    ['Revenue: 12,345', '2345', false],
    ['Revenue: 1,234,567', '1,234', false],
    ['Revenue: $1,234.', '$1234', true],
    ['nothing here', 'Acme', false],
    ['anything', '   ', false],
  ])('%j contains %j: %s', (content, value, expected) => {
    expect(valueOccursIn(content, value)).toBe(expected);
  });
  it('keeps decimals and unrelated commas', () => {
    expect(normaliseEvidence('1,5 and 3.14, 2,1234')).toBe('1,5 and 3.14, 2,1234');
  });
});
