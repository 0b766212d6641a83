import type { Draft } from '../../core/research/board';
import type { CycleResult } from '../../core/cycle/input';
import { totalUsage } from '../../core/cycle/model';
import { type WorkerInput, WorkerInputSchema, type WorkerResult } from '../../core/research/run';
import { investigationInput } from '../../core/research/investigation';
import { researchInvestigationId } from '../../common/ids';
import { ResearchError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import { writeAsWorker } from './board-write';
import { runCycleChild } from '../cycle/start-cycle-child';

/**
 * One research worker: claims its fact (unless the supervisor delegated it already), runs the investigation as a
 * child cycle that ends with a `board_write`, and always writes: an investigation that ends without an accepted
 * write records UNVERIFIED with the reason, so no fact stays PENDING behind a finished worker.
 */
export async function researchWorker(rawInput: WorkerInput): Promise<WorkerResult> {
  const input = parseWorkflowInput(WorkerInputSchema(), rawInput, ResearchError.BadInput, 'research worker input');
  const research = { supervisorId: input.supervisorId, workerId: input.workerId };
  const write = (draft: Draft, usage?: CycleResult['usageByModel']) => writeAsWorker(research, draft, usage);
  const fact = { entity: input.entity, field: input.field };
  if (!input.delegated) {
    const claim = await write({ type: 'PENDING', body: { ...fact, assignedTo: input.workerId } });
    if (!claim.ok) return { workerId: input.workerId, wrote: `claim refused: ${claim.error}`, turns: 0 };
  }
  const cycleId = researchInvestigationId(input.workerId);
  const child = await runCycleChild(investigationInput(input, cycleId), `research: ${input.entity} / ${input.field}`);
  const result = 'result' in child ? child.result : undefined;
  const usageByModel = result?.usageByModel ?? {};
  const done = {
    workerId: input.workerId,
    turns: result?.iterations ?? 0,
    usage: totalUsage(usageByModel),
    usageByModel,
  };
  if (result?.boardEntry !== undefined) return { ...done, wrote: result.boardEntry };
  const reason = unwrittenReason(input, child);
  const final = await write({ type: 'UNVERIFIED', body: { ...fact, reason } }, usageByModel);
  return { ...done, wrote: final.ok ? `UNVERIFIED ${final.entry.id}` : final.error };
}

/** Why the investigation wrote nothing: out of turns, finished without a write, failed, or never ran. */
function unwrittenReason(input: WorkerInput, child: { result: CycleResult } | { error: string }): string {
  if ('error' in child) return `the investigation did not run: ${child.error}`.slice(0, 2000);
  const { result } = child;
  if (result.outcome === 'max_iterations') return `no verified value within ${input.maxTurns} turns`;
  if (result.outcome === 'failed') return `the investigation failed: ${result.error ?? 'unknown error'}`.slice(0, 2000);
  return `the investigation finished without writing its fact to the board`;
}
