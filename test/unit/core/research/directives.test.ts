import type { Author, BoardEntry, Draft } from '../../../../src/core/research/board';
import { RESEARCH_BYTES, boardWithin } from '../../../../src/core/research/board-budget';
import { DirectiveIntake, type IntakeView } from '../../../../src/core/research/directives';
import { DIRECTIVE_LIMITS, MAX_RUN_NOTES } from '../../../../src/core/research/limits';
import { addNote, noteLines } from '../../../../src/core/research/notes';
import { ResearchInputSchema, initialStrategy } from '../../../../src/core/research/run';
import { PAYLOAD_BUDGET_BYTES, payloadBytes } from '../../../../src/core/payload';
import { readMessage } from '../../../../src/clients/directive-bridge';
import { ResearchRun } from '../../../../src/workflows/research/research-run';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const input = ResearchInputSchema().parse({ runId: 'r1', question: 'Acme?', entities: ['Acme'], fields: ['revenue'] });
const alice: Author = { role: 'user', id: 'alice' };
const directive = (text: string): Draft => ({ type: 'USER_DIRECTIVE', body: { text } });
const open: IntakeView = { now: NOW, landed: 0, held: 0, planning: false, closed: false, full: false };

function planned(): ResearchRun {
  const run = new ResearchRun(input, 'research/r1', NOW);
  run.appendAsSupervisor({ type: 'STRATEGY', body: initialStrategy(input, (n) => `w${n}`) }, NOW);
  return run;
}

const userDirectives = (run: ResearchRun) => run.entries.filter((entry) => entry.type === 'USER_DIRECTIVE');

describe('the directive intake: every directive has a cap', () => {
  it.each<[string, Partial<IntakeView>, string]>([
    ['to a run that ended', { closed: true }, 'directive:closed'],
    ['past the per-run cap', { landed: DIRECTIVE_LIMITS.perRun }, 'directive:cap'],
    ['to a board past its room', { full: true }, 'directive:room'],
    ['past the held cap while planning', { planning: true, held: DIRECTIVE_LIMITS.held }, 'directive:held'],
  ])('drops one %s, with a note', (_name, view, key) => {
    expect(new DirectiveIntake().admit(undefined, { ...open, ...view })).toMatchObject({ kind: 'drop', key });
  });

  it(`admits ${DIRECTIVE_LIMITS.perMinute} a minute, then drops the rest until a minute has passed`, () => {
    const intake = new DirectiveIntake();
    const admitted = (now: number) => intake.admit(undefined, { ...open, now }).kind;

    const first = Array.from({ length: DIRECTIVE_LIMITS.perMinute + 3 }, (_, index) => admitted(NOW + index));

    expect(first.filter((kind) => kind === 'admit')).toHaveLength(DIRECTIVE_LIMITS.perMinute);
    expect(first.slice(DIRECTIVE_LIMITS.perMinute)).toEqual(['drop', 'drop', 'drop']);
    expect(admitted(NOW + 59_000)).toBe('drop');
    expect(admitted(NOW + 60_000)).toBe('admit');
  });

  it('lands a message once by its id, even when its first copy was dropped, and remembers ids across a handover', () => {
    const intake = new DirectiveIntake();
    expect(intake.admit('m1', open)).toEqual({ kind: 'admit' });
    expect(intake.admit('m1', open)).toEqual({ kind: 'duplicate' });
    expect(intake.admit('m2', { ...open, closed: true })).toMatchObject({ kind: 'drop' });
    expect(intake.admit('m2', open)).toEqual({ kind: 'duplicate' });

    const next = new DirectiveIntake(intake.memory());
    expect(next.admit('m1', open)).toEqual({ kind: 'duplicate' });
    expect(next.memory().times).toEqual([NOW]);
  });

  it(`remembers the newest ${DIRECTIVE_LIMITS.rememberedIds} ids only`, () => {
    const intake = new DirectiveIntake();
    for (let index = 0; index <= DIRECTIVE_LIMITS.rememberedIds; index++)
      intake.admit(`m${index}`, { ...open, closed: true });

    expect(intake.memory().ids).toHaveLength(DIRECTIVE_LIMITS.rememberedIds);
    expect(intake.admit('m0', open)).toEqual({ kind: 'admit' });
  });
});

describe('a run taking a flood of directives', () => {
  it('lands the rate per minute and the per-run cap, one count-up note per kind, and the board stays small', () => {
    const run = planned();
    for (let minute = 0; minute < 30; minute++) {
      for (let index = 0; index < 40; index++) {
        run.directive(
          alice,
          directive(`${minute}/${index} `.padEnd(DIRECTIVE_LIMITS.text, 'x')),
          NOW + minute * 60_000,
        );
      }
    }

    expect(userDirectives(run)).toHaveLength(DIRECTIVE_LIMITS.perRun);
    expect(run.notes.map((note) => [note.key, note.count])).toEqual([
      // 19 minutes of 10 landing and 30 over the rate; in the 20th the cap is reached, and holds from then on.
      ['directive:rate', 19 * 30],
      ['directive:cap', 30 + 10 * 40],
    ]);
    expect(run.status().notes[0]).toBe('more than 10 directives in a minute: the extra ones are dropped (×570)');
    expect(run.boardBytes).toBeLessThan(RESEARCH_BYTES.directiveRoom);
    expect(payloadBytes(run.handover())).toBeLessThan(PAYLOAD_BUDGET_BYTES);
  });

  it('drops directives once the board is past its room, and one a second bridge forwards again', () => {
    const run = planned();
    run.boardBytes = RESEARCH_BYTES.directiveRoom;
    run.directive(alice, directive('too late'), NOW);
    run.boardBytes = 0;
    run.directive(alice, directive('once'), NOW, 'redis:p:1');
    run.directive(alice, directive('once'), NOW + 1, 'redis:p:1');

    expect(userDirectives(run).map((entry) => entry.body)).toEqual([{ text: 'once' }]);
    expect(run.status().notes).toEqual(['the board is too large to take more directives: dropped']);
  });

  it('holds at most its cap while the supervisor plans, and lands them after the first STRATEGY', () => {
    const run = new ResearchRun(input, 'research/r1', NOW);
    for (let index = 0; index < DIRECTIVE_LIMITS.held + 2; index++) {
      run.directive(alice, directive(`early ${index}`), NOW + index * 10_000);
    }
    run.appendAsSupervisor({ type: 'STRATEGY', body: initialStrategy(input, (n) => `w${n}`) }, NOW);

    expect(userDirectives(run)).toHaveLength(DIRECTIVE_LIMITS.held);
    expect(run.notes.map((note) => [note.key, note.count])).toEqual([['directive:held', 2]]);
  });
});

describe('notes', () => {
  it('count up one line per kind, and keep the newest kinds', () => {
    let notes = addNote([], 'a', 'first a');
    notes = addNote(notes, 'b', 'b');
    notes = addNote(notes, 'a', 'second a');
    expect(noteLines(notes)).toEqual(['b', 'second a (×2)']);
    for (let index = 0; index < MAX_RUN_NOTES + 5; index++) notes = addNote(notes, `k${index}`, 'x');
    expect(notes).toHaveLength(MAX_RUN_NOTES);
  });
});

describe('the board within the payload budget', () => {
  const entry = (index: number, text: string): BoardEntry => ({
    id: `e${index + 1}`,
    type: 'USER_DIRECTIVE',
    author: alice,
    turn: 1,
    createdAt: '',
    body: { text },
  });

  it('is whole when it fits, else cuts the oldest long texts with a pointer and keeps the newest whole', () => {
    const entries = Array.from({ length: 1000 }, (_, index) => entry(index, `${index} `.padEnd(2000, 'y')));
    expect(boardWithin(entries.slice(0, 3))).toEqual(entries.slice(0, 3));

    const fitted = boardWithin(entries, 1_000_000);

    expect(payloadBytes(fitted)).toBeLessThanOrEqual(1_000_000);
    expect(fitted.map((e) => e.id)).toEqual(entries.map((e) => e.id));
    expect(fitted[0]?.body).toEqual({ text: expect.stringMatching(/^0 y+… \[cut for size from 2000 characters\]$/) });
    expect(fitted.at(-1)).toEqual(entries.at(-1));
  });
});

describe('the Redis bridge reading a message', () => {
  const channel = 'scratchpad:r1:directives';

  it('gives the same id to copies of one message, and claims a plain text by content for its minute', () => {
    const plain = readMessage(channel, 'prefer filings', NOW);
    const again = readMessage(channel, 'prefer filings', NOW + 1000);
    const later = readMessage(channel, 'prefer filings', NOW + 60_000);
    const withId = readMessage(channel, JSON.stringify({ text: 'prefer filings', by: 'ops', id: 'abc' }), NOW);
    if ([plain, again, later, withId].some((read) => typeof read === 'string')) throw new Error('not read');
    const [a, b, c, d] = [plain, again, later, withId] as Exclude<typeof plain, string>[];

    expect(a?.directive).toEqual({ text: 'prefer filings', id: expect.stringMatching(/^redis:c:[0-9a-f]{40}:\d+$/) });
    expect(b?.directive.id).toBe(a?.directive.id);
    expect(c?.directive.id).not.toBe(a?.directive.id);
    expect(c?.claimKey).toBe(a?.claimKey);
    expect(d).toMatchObject({ runId: 'r1', directive: { by: 'redis:ops', id: expect.stringMatching(/^redis:p:/) } });
    expect(d?.claimSeconds).toBeGreaterThan(a?.claimSeconds ?? 0);
  });

  it.each([
    ['scratchpad:bad run:directives', 'x', /names no research run/],
    [channel, '   ', /an empty directive/],
    [channel, 'x'.repeat(DIRECTIVE_LIMITS.text + 1), /over the 2000-character limit/],
    [channel, JSON.stringify({ text: 'y'.repeat(DIRECTIVE_LIMITS.text + 1) }), /over the 2000-character limit/],
    [channel, 'z'.repeat(100_000), /too long/],
  ])('refuses %s / a message like %#', (on, message, reason) => {
    expect(readMessage(on, message, NOW)).toMatch(reason);
  });
});
