import type { Author, BoardEntry, Draft } from '../../../src/core/research/board';
import type { ResearchStatus } from '../../../src/core/research/run';
import { renderBoard } from '../../../src/core/research/render';
import { defaultScratchpad, enqueueTasks } from '../../../src/core/scratchpad/scratchpad';
import { utf8Length } from '../../../src/core/text';
import { askedDetails, cycleDetails, cycleOutcomeLine } from '../../../src/workflows/cycle/cycle-details';
import { agentCycleDescription } from '../../../src/workflows/agent/child-cycle';
import { DETAILS_BYTES, outcomeLine, withinSections } from '../../../src/workflows/cycle/details-text';
import { researchDetails, researchOutcomeLine } from '../../../src/workflows/research/research-details';
import { stagedDetails } from '../../../src/workflows/staged/staged-details';
import { stagedAskedDetails, stagedSummary } from '../../../src/clients/staged-runs';

const usage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe('withinSections (details capped by whole sections)', () => {
  it('keeps every section when they fit, joined by blank lines', () => {
    expect(withinSections(['head', '### A\n- a', '### B\n- b'], 1500)).toBe('head\n\n### A\n- a\n\n### B\n- b');
  });

  it('leaves a section out whole, names it, keeps the ones after it that fit, and stays within the cap', () => {
    const big = `### VERIFIED (400)\n${Array.from({ length: 400 }, (_, i) => `- e${i} Acme / f${i} = ${i}`).join('\n')}`;
    const text = withinSections(['failed: x', '### notes\n- n', big, '### SYNTHESIS (1)\n- answer'], 4096);
    expect(utf8Length(text)).toBeLessThanOrEqual(4096);
    expect(text.startsWith('failed: x\n\n### notes\n- n\n\n### SYNTHESIS (1)\n- answer')).toBe(true);
    expect(text).not.toContain('- e0 ');
    expect(text).toMatch(/Left out to stay within 4096 bytes: 1 section\(s\): VERIFIED \(400\)\._$/);
  });

  it('caps the first section by code points, never past the budget', () => {
    const text = withinSections(['é'.repeat(100_000)], DETAILS_BYTES);
    expect(utf8Length(text)).toBeLessThanOrEqual(DETAILS_BYTES);
  });

  it('puts the outcome on one capped line', () => {
    expect(outcomeLine('failed', 'model\nerror:  429')).toBe('failed: model error: 429');
    expect(outcomeLine('failed', 'x'.repeat(2000)).length).toBe(500);
    expect(outcomeLine('completed')).toBe('completed');
  });
});

describe('cycle details', () => {
  const after = enqueueTasks(defaultScratchpad(), ['Ship the release']);
  const end = { iterations: 3, maxIterations: 3, usage, after };

  it("say the outcome in words on the first line: a failed cycle's reason, a cycle stopped at its limit", () => {
    const failed = cycleDetails({ ...end, outcome: 'failed', error: 'ModelError.Auth: invalid x-api-key' });
    expect(failed.split('\n')[0]).toBe('failed: ModelError.Auth: invalid x-api-key');
    expect(failed).toContain('## TASKS');
    expect(cycleOutcomeLine({ ...end, outcome: 'max_iterations' })).toBe(
      'max_iterations: stopped at the limit of 3 iterations before the work was done',
    );
    expect(cycleOutcomeLine({ ...end, outcome: 'completed', reply: 'Hi', iterations: 1 })).toBe(
      'completed: replied after 1 iteration',
    );
  });

  it('say what a cycle was asked: kind, agent, limits, message, task, directives', () => {
    const input = {
      kind: 'chat' as const,
      agentId: 'a1',
      cycleId: 'agent/a1/cycle/7',
      before: after,
      message: 'What changed?',
      maxIterations: 4,
      directives: ['be brief'],
    };
    const text = askedDetails(input, agentCycleDescription(input));
    expect(text.split('\n')[0]).toBe('**chat turn** `agent/a1/cycle/7` of agent `a1`, at most 4 iterations');
    expect(text).toContain('### Message\nWhat changed?');
    expect(text).toContain('### Directives (1)\n- be brief');
    expect(text).toMatch(/Ship the release/);
  });
});

describe('staged run details', () => {
  it('summarise the task, say what was asked, then how the run ended first', () => {
    expect(stagedSummary({ task: 'Add\na sum function' })).toBe('staged: Add a sum function');
    expect(stagedAskedDetails({ agentId: 'a1', task: 'Add sum', verify: 'npm test' }, 'staged/a1/2')).toContain(
      '### Verification\n`npm test`',
    );
    const text = stagedDetails({
      runId: 'staged/a1/2',
      agentId: 'a1',
      outcome: 'unverified',
      reason: 'the stages finished but no verification command was given',
      plan: ['Add sum'],
      stages: [
        {
          kind: 'stage',
          stage: 'Add sum',
          cycleId: 'staged/a1/2/stage-1',
          outcome: 'completed',
          touchedPaths: ['sum.js'],
          refusedPaths: [],
        },
      ],
      verifications: [],
      files: ['sum.js'],
      notices: [],
    });
    expect(text.split('\n')[0]).toBe('unverified: the stages finished but no verification command was given');
    expect(text).toContain('- **stage-1** completed: wrote sum.js');
    expect(text).toContain('### Files (1)\n- sum.js');
  });
});

describe('research run details', () => {
  const supervisor: Author = { role: 'supervisor', id: 'research/r1' };
  const worker: Author = { role: 'worker', id: 'research/r1/worker/1' };
  const count = 600;
  const drafts: [Author, Draft][] = Array.from({ length: count }, (_, index) => [
    worker,
    {
      type: 'VERIFIED',
      body: {
        entity: `Entity${index}`,
        field: 'revenue',
        value: `${index},000,000`,
        sourceUrl: `http://example.test/reports/${index}/annual-report-with-a-long-path`,
        retrievedBy: worker.id,
        evidence: { step: 2 },
      },
    },
  ]);
  drafts.push([supervisor, { type: 'SYNTHESIS', body: { answer: 'All figures found.', citations: ['e1'] } }]);
  const entries = drafts.map(
    ([author, draft], index) =>
      ({ id: `e${index + 1}`, author, turn: 1, createdAt: '2026-01-01T00:00:00.000Z', ...draft }) as BoardEntry,
  );
  const status: ResearchStatus = {
    runId: 'r1',
    outcome: 'incomplete',
    facts: [
      { entity: 'Entity0', field: 'revenue', state: 'VERIFIED' },
      { entity: 'Acme', field: 'employees', state: 'PENDING' },
    ],
    activeWorkers: [],
    workersStarted: count,
    entries: entries.length,
    missing: ['Acme / employees: PENDING'],
    usage: { usage, usageByModel: {}, costUsd: 0 },
    notes: [],
  };

  it('are complete by section: a section past the cap is left out whole and named, never cut mid-way', () => {
    // Before: the board was cut at 20,000 characters, in the middle of an entry of the VERIFIED section.
    expect(renderBoard(entries, status)).not.toContain('### SYNTHESIS');
    const text = researchDetails(entries, status);
    expect(text.split('\n')[0]).toBe('incomplete: 1 of 2 facts verified; missing Acme / employees: PENDING');
    expect(text).toContain('### SYNTHESIS (1)\n- **e601** cites e1: All figures found.');
    expect(text).not.toContain('### VERIFIED');
    expect(text).toContain(`Left out to stay within ${DETAILS_BYTES} bytes: 1 section(s): VERIFIED (${count}).`);
    expect(utf8Length(text)).toBeLessThanOrEqual(DETAILS_BYTES);
  });

  it('say a complete run is complete, with the facts verified', () => {
    const complete = { ...status, outcome: 'complete' as const, missing: [] };
    expect(researchOutcomeLine(entries.slice(-2), complete)).toBe(
      `complete: 1 of 2 facts verified, ${entries.length} board entries`,
    );
  });
});
