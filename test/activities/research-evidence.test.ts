import { createResearchActivities } from '../../src/activities/research/board';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { createObservationRuntime } from '../../src/activities/observations/runtime';
import { researchInvestigationId, researchWorkerId, subagentCycleId } from '../../src/common/ids';

const URL_ = 'http://fixture.test/acme';
const w1 = researchWorkerId('r', 1);
const w2 = researchWorkerId('r', 2);
const ACME_REVENUE = {
  sourceUrl: URL_,
  value: '1234567',
  entity: 'Acme',
  field: 'revenue',
  quote: 'revenue USD 1,234,567',
  run: { entities: ['Acme', 'Globex'], fields: ['revenue', 'employees'] },
};

async function setup() {
  const runtime = createObservationRuntime(new MemoryObservationStore());
  const { checkEvidence } = createResearchActivities(undefined, runtime);
  const fetched = (turnId: string, step: number, url = URL_) =>
    runtime.store.put({
      turnId,
      step,
      toolName: 'web_fetch',
      agentId: 'research/r',
      kind: 'text',
      content: '<table><tr><td>revenue</td><td>USD 1,234,567</td></tr></table>',
      metadata: { url, ok: true },
    });
  return { checkEvidence, fetched };
}

describe('checkEvidence: the observation must come from this worker’s investigation', () => {
  it("accepts the investigation cycle's fetch by step or id, and its sub-agent's by id", async () => {
    const { checkEvidence, fetched } = await setup();
    const cycle = researchInvestigationId(w1);
    await fetched(cycle, 2);
    const own = await fetched(cycle, 3);
    const sub = await fetched(subagentCycleId(cycle, 1), 1);
    const claim = { ...ACME_REVENUE, workerId: w1 };
    expect(await checkEvidence({ ...claim, evidence: { step: 2 } })).toEqual({ ok: true });
    expect(await checkEvidence({ ...claim, evidence: { observationId: own.id } })).toEqual({ ok: true });
    expect(await checkEvidence({ ...claim, evidence: { observationId: sub.id } })).toEqual({ ok: true });
    expect(await checkEvidence({ ...claim, value: '999', evidence: { step: 2 } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('does not occur'),
    });
    // The quote is the evidence: a claim without one, or quoting another row, is not verified.
    const { quote: _quote, ...unquoted } = claim;
    expect(await checkEvidence({ ...unquoted, evidence: { step: 2 } })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^\[quote\] VERIFIED needs a quote/),
    });
    expect(await checkEvidence({ ...claim, field: 'employees', evidence: { step: 2 } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('[field]'),
    });
  });

  it("refuses another worker's investigation, its sub-agents, and a step this worker never took", async () => {
    const { checkEvidence, fetched } = await setup();
    const other = await fetched(researchInvestigationId(w2), 1);
    const otherSub = await fetched(subagentCycleId(researchInvestigationId(w2), 1), 1);
    const stranger = await fetched('agent/mallory/cycle/1', 1);
    const claim = { ...ACME_REVENUE, workerId: w1 };
    for (const id of [other.id, otherSub.id, stranger.id]) {
      expect(await checkEvidence({ ...claim, evidence: { observationId: id } })).toEqual({
        ok: false,
        reason: `observation ${id} was not made by this worker`,
      });
    }
    expect(await checkEvidence({ ...claim, evidence: { step: 1 } })).toEqual({
      ok: false,
      reason: 'no stored observation step 1',
    });
  });
});
