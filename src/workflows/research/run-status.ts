import { facts } from '../../core/research/board';
import { linesWithin, listWithin } from '../../core/research/board-budget';
import { noteLines } from '../../core/research/notes';
import { approvalViews } from '../../core/research/approvals';
import { describeMissing, mirrorStatus, type ResearchStatus } from '../../core/research/run';
import { PAYLOAD_BUDGET_BYTES } from '../../core/payload';
import type { ResearchRun } from './research-run';

/** The `status` answer of a run, its lists cut to fit the payload budget on a run of thousands of facts. */
export function runStatus(run: ResearchRun): ResearchStatus {
  const missing = run.outcome === 'running' ? describeMissing(facts(run.entries)) : run.missing;
  const views = facts(run.entries).map((fact) => ({
    entity: fact.entity,
    field: fact.field,
    state: fact.state,
    ...(fact.latest && { entryId: fact.latest.id }),
  }));
  const waiting = approvalViews(run.entries, run.approvals.waiting(run.active));
  return {
    runId: run.input.runId,
    outcome: run.outcome,
    facts: listWithin(views, PAYLOAD_BUDGET_BYTES / 2),
    activeWorkers: [...run.active],
    workersStarted: run.spawned.size,
    entries: run.entries.length,
    missing: linesWithin(missing, PAYLOAD_BUDGET_BYTES / 4),
    usage: run.usage,
    notes: noteLines(run.notes),
    ...(run.mirror && { mirror: mirrorStatus(run.mirror, run.entries.length, run.mirrored) }),
    ...(waiting.length > 0 && { approvals: listWithin(waiting, PAYLOAD_BUDGET_BYTES / 16) }),
  };
}
