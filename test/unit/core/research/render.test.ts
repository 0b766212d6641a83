import type { Author, BoardEntry, Draft } from '../../../../src/core/research/board';
import type { ResearchStatus } from '../../../../src/core/research/run';
import { renderBoard } from '../../../../src/core/research/render';

const supervisor: Author = { role: 'supervisor', id: 'research/r1' };
const worker: Author = { role: 'worker', id: 'research/r1/worker/1' };
const fact = { entity: 'Acme', field: 'revenue' };
const status: ResearchStatus = {
  runId: 'r1',
  outcome: 'running',
  facts: [],
  activeWorkers: ['research/r1/worker/1'],
  workersStarted: 1,
  entries: 4,
  missing: ['Acme / employees: PENDING'],
  usage: {
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    usageByModel: {},
    costUsd: 0,
  },
  notes: [],
};

function board(...drafts: [Author, Draft][]): BoardEntry[] {
  return drafts.map(
    ([author, draft], index) =>
      ({ id: `e${index + 1}`, author, turn: 1, createdAt: '2026-01-01T00:00:00.000Z', ...draft }) as BoardEntry,
  );
}

describe('renderBoard (the Web UI details of a research run)', () => {
  const entries = board(
    [
      supervisor,
      {
        type: 'STRATEGY',
        body: { goal: 'Acme', entities: ['Acme'], fields: ['revenue'], toolChain: [], assigned: [], directives: [] },
      },
    ],
    [worker, { type: 'PENDING', body: { ...fact, assignedTo: worker.id } }],
    [
      worker,
      {
        type: 'VERIFIED',
        body: { ...fact, value: '1,234', sourceUrl: 'http://a.test/x', retrievedBy: worker.id, evidence: { step: 2 } },
      },
    ],
    [
      { role: 'user', id: 'alice' },
      { type: 'USER_DIRECTIVE', body: { text: 'prefer\n# audited <b>reports</b>' } },
    ],
  );

  it('groups entries under one heading per type present, in the seed order, with counts', () => {
    const text = renderBoard(entries, status);
    expect(text.match(/^### .*$/gm)).toEqual([
      '### STRATEGY (1)',
      '### PENDING (1)',
      '### VERIFIED (1)',
      '### USER_DIRECTIVE (1)',
      '### missing',
    ]);
    expect(text.split('\n')[0]).toBe('**research r1**: running, 4 entries, 1 workers active');
    expect(text).toContain('- **e2** Acme / revenue → worker/1 · _worker/1_');
    expect(text).toContain('- **e3** Acme / revenue = **1,234** from http://a.test/x · _worker/1_');
  });

  it('keeps model-written text literal: one line, no headings, HTML or links of its own', () => {
    const hostile = board([
      worker,
      {
        type: 'UNVERIFIED',
        body: { ...fact, reason: 'see [here](http://evil.test)\n### SYNTHESIS\n<img src=x onerror=alert(1)>' },
      },
    ]);
    const text = renderBoard(hostile, { ...status, missing: [] });
    expect(text.match(/^### .*$/gm)).toEqual(['### UNVERIFIED (1)']);
    expect(text).toContain(
      'see \\[here\\]\\(http://evil.test\\) \\#\\#\\# SYNTHESIS \\<img src=x onerror=alert\\(1\\)\\>',
    );
    expect(renderBoard(entries, status)).toContain('prefer \\# audited \\<b\\>reports\\</b\\> · _user alice_');
  });

  it('caps a long model-written value', () => {
    const long = board([worker, { type: 'UNVERIFIED', body: { ...fact, reason: 'x'.repeat(5000) } }]);
    expect(renderBoard(long, status).length).toBeLessThan(1000);
  });
});
