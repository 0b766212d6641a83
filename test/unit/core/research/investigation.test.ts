import { InvestigationInputSchema } from '../../../../src/core/research/investigation-input';
import { SubagentCycleInputSchema } from '../../../../src/core/agent/subagent';
import { urlKey } from '../../../../src/core/research/url-key';
import { MAX_SECTION_CHARS } from '../../../../src/core/scratchpad/scratchpad';
import type { WorkerInput } from '../../../../src/core/research/run';
import {
  INVESTIGATION_DEPTH,
  INVESTIGATION_TOOLS,
  investigationInput,
} from '../../../../src/core/research/investigation';
import { MAX_SUBAGENT_DEPTH, subagentInput } from '../../../../src/core/agent/subagent';
import {
  isWorkerObservation,
  researchInvestigationId,
  researchWorkerId,
  subagentCycleId,
} from '../../../../src/common/ids';

const worker: WorkerInput = {
  supervisorId: 'research/r1',
  workerId: researchWorkerId('r1', 1),
  entity: 'Acme',
  field: 'revenue',
  goal: 'Revenue of Acme',
  delegated: false,
  searchHint: 'try the annual report',
  tombstoned: ['http://example.test/dead'],
  maxTurns: 6,
  model: 'scripted:x',
  attempt: 2,
};

describe("a research worker's investigation", () => {
  it('is a fresh cycle: the fact as purpose and task, the brief as workspace, research tools, one level down', () => {
    const cycleId = researchInvestigationId(worker.workerId);
    const input = InvestigationInputSchema().parse(investigationInput(worker, cycleId));
    expect(input).toMatchObject({ cycleId, agentId: 'research/r1', maxIterations: 6, model: 'scripted:x' });
    expect(input.before.identity.purpose).toBe('Research Acme / revenue');
    expect(input.before.current_task).toBe('Research Acme / revenue');
    expect(input.before.workspace.split('\n')).toEqual(
      expect.arrayContaining([
        'Fact: Acme / revenue (attempt 2)',
        'Goal: Revenue of Acme',
        'Search hint: try the annual report',
        'Tombstoned (never fetch): http://example.test/dead',
      ]),
    );
    expect(input.tools).toEqual([...INVESTIGATION_TOOLS]);
    expect(input.tools).not.toContain('shell');
    expect(INVESTIGATION_DEPTH).toBe(1);
    expect(input).toMatchObject({
      research: { supervisorId: 'research/r1', workerId: worker.workerId, entity: 'Acme', field: 'revenue' },
    });
    // Its sub-agent keeps the board (tombstones) but may not write the fact, and is the last level that may run.
    const from = {
      parent: input,
      depth: INVESTIGATION_DEPTH,
      withhold: ['board_write'],
      inherited: { callContext: { boardId: 'research/r1' } },
    };
    const sub = SubagentCycleInputSchema().parse(subagentInput(from, subagentCycleId(cycleId, 1), 'Find it', 'ctx'));
    expect(sub).toMatchObject({ inherited: { callContext: { boardId: 'research/r1' } } });
    expect(sub.tools).not.toContain('board_write');
    expect(sub.depth).toBe(MAX_SUBAGENT_DEPTH);
  });

  it('fits a long goal and tombstone list into WORKSPACE, keeping the fact line and the closing instruction', () => {
    const tombstoned = Array.from({ length: 64 }, (_, index) => `http://example.test/${'x'.repeat(2000)}/${index}`);
    const long = { ...worker, goal: 'g'.repeat(2000), tombstoned };
    const input = InvestigationInputSchema().parse(investigationInput(long, researchInvestigationId(worker.workerId)));
    expect(input.before.workspace.length).toBeLessThanOrEqual(MAX_SECTION_CHARS);
    expect(input.before.workspace.split('\n')[0]).toBe('Fact: Acme / revenue (attempt 2)');
    expect(input.before.workspace).toMatch(/…\nFinish with board_write: /);
  });

  it("accepts as evidence only observations of this worker's investigation", () => {
    const w1 = researchWorkerId('r1', 1);
    const cycle = researchInvestigationId(w1);
    for (const own of [w1, cycle, subagentCycleId(cycle, 1), subagentCycleId(subagentCycleId(cycle, 2), 1)]) {
      expect(isWorkerObservation(own, w1)).toBe(true);
    }
    const w10 = researchWorkerId('r1', 10);
    for (const other of [
      w10,
      researchInvestigationId(w10),
      subagentCycleId(researchInvestigationId(w10), 1),
      researchWorkerId('r2', 1),
      `${cycle}x`,
      `${cycle}/other/1`,
      'agent/a/cycle/1',
    ]) {
      expect(isWorkerObservation(other, w1)).toBe(false);
    }
  });

  it('keys URLs so a denied page cannot come back spelled differently', () => {
    const key = urlKey('http://example.test/dead');
    for (const spelling of [
      'HTTP://EXAMPLE.test:80/dead',
      'http://example.test/a/../dead',
      'http://example.test/dead?',
      'http://example.test/dead#section',
      'http://example.test/%64%65ad',
    ]) {
      expect(urlKey(spelling)).toBe(key);
    }
    for (const other of ['http://example.test/dead?page=2', 'http://example.test/dead/', 'https://example.test/dead']) {
      expect(urlKey(other)).not.toBe(key);
    }
    expect(urlKey('not a url')).toBe('not a url');
  });
});
