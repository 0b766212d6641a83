import type { Author, BoardEntry, Draft } from '../../../../src/core/research/board';
import { CapabilityTokens } from '../../../../src/core/research/capabilities';
import { FetchLedger } from '../../../../src/core/research/fetch-ledger';
import { draftFromBoardWrite, investigationInput } from '../../../../src/core/research/investigation';
import { subagentInput } from '../../../../src/core/agent/subagent';
import { InvestigationInputSchema } from '../../../../src/core/research/investigation-input';
import { aliasesOf, checkPlan } from '../../../../src/core/research/plan';
import { composeAnswer } from '../../../../src/core/research/run';
import { excludingHosts, queryFromReply, tombstoneQuery } from '../../../../src/core/research/search-query';
import { RefusedWrite, parseWriteRequest } from '../../../../src/workflows/research/write-request';

const owner = { workerId: 'w1', entity: 'Acme', field: 'revenue' };
const entry = (id: string, type: BoardEntry['type'], body: object): BoardEntry =>
  ({ id, type, author: { role: 'worker', id: 'w1' }, turn: 1, createdAt: '', body }) as BoardEntry;

describe('FAILED_URL cites a failure the worker saw', () => {
  it('refuses a URL never fetched, or fetched fine; says what failed otherwise, with the last query', () => {
    const seen = new FetchLedger();
    const failed = (url: string) => draftFromBoardWrite({ status: 'FAILED_URL', url, reason: 'dead' }, owner, seen);
    expect(failed('http://a.test/x')).toMatch(/^FAILED_URL is only for a URL your own web_fetch saw fail/);
    seen.observe({ tool: 'web_fetch', args: { url: 'http://a.test/ok' } }, { ok: true, status: 200 });
    expect(failed('http://a.test/ok')).toMatch(/was not fetched in this investigation, or its fetch succeeded$/);
    seen.observe({ tool: 'web_search', args: { query: 'acme revenue 2024' } }, { ok: true });
    seen.observe(
      { tool: 'web_fetch', args: { url: 'http://a.test/x#top' } },
      { ok: false, error: 'HTTP 404 Not Found' },
    );
    // A large error page is a synthetic observation: its status sits in metadata.
    const synthetic = { ok: true, scratchpad_id: '0123456789abcdef', metadata: { status: 503, url: 'http://b.test/' } };
    seen.observe({ tool: 'web_fetch', args: { url: 'http://b.test' } }, synthetic);
    expect(failed('http://a.test/x')).toEqual({
      type: 'FAILED_URL',
      body: {
        ...{ entity: 'Acme', field: 'revenue', url: 'http://a.test/x', triedBy: 'w1' },
        failureReason: 'web_fetch failed: HTTP 404 Not Found; the worker says: dead',
        searchQuery: 'acme revenue 2024',
      },
    });
    expect(failed('http://b.test/')).toMatchObject({
      body: { failureReason: 'web_fetch failed: HTTP 503; the worker says: dead' },
    });
  });

  it('keeps the quote on a VERIFIED draft and refuses one past 300 characters back to the worker', () => {
    const args = { status: 'VERIFIED', value: '5', source_url: 'http://a.test/', step: 1 };
    const draft = draftFromBoardWrite({ ...args, quote: ' revenue 5 ' }, owner, new FetchLedger());
    expect(draft).toMatchObject({ type: 'VERIFIED', body: { quote: 'revenue 5' } });
    expect(draftFromBoardWrite({ ...args, quote: 'x'.repeat(301) }, owner, new FetchLedger())).toMatch(
      /^the quote has 301 characters; at most 300/,
    );
  });
});

describe('writers prove who they are', () => {
  const request = (token?: string) => ({
    author: { role: 'worker', id: 'w1' } as Author,
    draft: { type: 'UNVERIFIED', body: { entity: 'Acme', field: 'revenue', reason: 'x' } },
    ...(token !== undefined && { token }),
  });
  const tokens = new CapabilityTokens({ w1: 't-one', w2: 't-two' });
  const parse = (token?: string) => () =>
    parseWriteRequest(
      request(token),
      () => true,
      (id) => tokens.of(id),
    );

  it("refuses a write without the worker's token or with another's, never echoing a token", () => {
    expect(parse()).toThrow(
      new RefusedWrite('worker w1 may not write UNVERIFIED: [token] the write presented no capability token'),
    );
    expect(parse('t-two')).toThrow(/\[token\] the write presented a token that is not its own$/);
    expect(parse('t-one')()).toMatchObject({ author: { id: 'w1' } });
  });

  it("never hands the worker's token to a sub-agent of its investigation", () => {
    const input = InvestigationInputSchema().parse(
      investigationInput(
        {
          supervisorId: 's',
          workerId: 'w1',
          entity: 'Acme',
          field: 'revenue',
          goal: 'g',
          delegated: false,
          tombstoned: [],
          maxTurns: 3,
          attempt: 1,
          token: 't-one',
        },
        'w1/cycle',
      ),
    );
    expect(input).toMatchObject({ research: { token: 't-one' } });
    // What the investigation passes down: its board and how its waits are named, never the token.
    const inherited = { callContext: { boardId: 'research/r' }, waitContext: 'research fact Acme / revenue (w1)' };
    const sub = subagentInput({ parent: input, depth: 1, inherited }, 'w1/cycle/sub/1', 'look deeper', '');
    expect(sub).toMatchObject({ inherited });
    expect(JSON.stringify(sub)).not.toContain('t-one');
  });

  it('hands over only the tokens of workers still running', () => {
    expect(tokens.handover(new Set(['w2']))).toEqual({ w2: 't-two' });
    expect(tokens.handover(new Set())).toBeUndefined();
    expect(new CapabilityTokens().issue('w3', 'fresh')).toBe('fresh');
  });
});

describe('a tombstone leads to a new search', () => {
  const board = [
    entry('e1', 'FAILED_URL', {
      entity: 'Acme',
      field: 'revenue',
      url: 'http://dead.test:8080/a',
      failureReason: 'x',
      triedBy: 'w1',
      searchQuery: 'acme revenue',
    }),
    entry('e2', 'TOMBSTONE', {
      entity: 'Acme',
      field: 'revenue',
      url: 'http://dead.test:8080/a',
      failureReason: 'x',
      permanent: true,
    }),
    entry('e3', 'TOMBSTONE', {
      entity: 'Acme',
      field: 'revenue',
      url: 'https://old.test/b',
      failureReason: 'x',
      permanent: true,
    }),
  ];

  it('varies the last query deterministically, excluding every tombstoned host once', () => {
    expect(tombstoneQuery(board, 'Acme', 'revenue')).toBe('acme revenue -site:dead.test:8080 -site:old.test');
    expect(tombstoneQuery(board.slice(1), 'Acme', 'revenue')).toBe('Acme revenue -site:dead.test:8080 -site:old.test');
    expect(excludingHosts('q -site:old.test', ['old.test'])).toBe('q -site:old.test');
    expect(excludingHosts('x'.repeat(500), ['h.test'])).toHaveLength(400);
  });

  it("takes the model's first line, unquoted, and still excludes the hosts; nothing usable is no query", () => {
    expect(queryFromReply('\n "acme annual report"\nmore', ['dead.test'])).toBe('acme annual report -site:dead.test');
    expect(queryFromReply('  \n ', ['dead.test'])).toBeUndefined();
  });
});

describe('aliases and the quoted answer', () => {
  it('reads aliases for the plan\u2019s fields only, trimmed and capped', () => {
    const plan = checkPlan(
      { entities: ['Acme'], fields: ['revenue'], aliases: { revenue: [' turnover ', 7, 'revenue', ''], other: ['x'] } },
      { question: 'q' },
    );
    expect(plan).toMatchObject({ ok: true, plan: { aliases: { revenue: ['turnover'] } } });
    expect(aliasesOf('nonsense', ['revenue'])).toBeUndefined();
  });

  it('shows each cited fact with its quote and URL; an entry from before quotes shows its URL', () => {
    const verified = (id: string, field: string, quote?: string): Draft & BoardEntry =>
      entry(id, 'VERIFIED', {
        entity: 'Acme',
        field,
        value: '5',
        sourceUrl: 'http://a.test/acme',
        retrievedBy: 'w1',
        evidence: { step: 1 },
        ...(quote && { quote }),
      }) as never;
    const strategy = entry('e1', 'STRATEGY', {
      goal: 'q',
      entities: ['Acme'],
      fields: ['revenue', 'staff'],
      toolChain: [],
      assigned: [],
      directives: [],
    });
    const answer = composeAnswer('q', [strategy, verified('e2', 'revenue', 'revenue  5'), verified('e3', 'staff')]);
    expect(answer).toEqual({
      answer: 'q\n- Acme revenue: 5 [e2] "revenue 5" (http://a.test/acme)\n- Acme staff: 5 [e3] (http://a.test/acme)',
      citations: ['e2', 'e3'],
    });
  });
});
