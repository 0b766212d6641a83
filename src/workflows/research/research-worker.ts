import { setHandler } from '@temporalio/workflow';
import type { Draft } from '../../core/research/board';
import { type CycleResult, DirectiveTextSchema } from '../../core/cycle/input';
import { totalUsage } from '../../core/cycle/model';
import { type WorkerInput, WorkerInputSchema, type WorkerResult } from '../../core/research/run';
import { investigationInput } from '../../core/research/investigation';
import type { InvestigationInput } from '../../core/research/investigation-input';
import { researchInvestigationId } from '../../common/ids';
import { ResearchError } from '../../common/failure-types';
import { directiveSignal } from '../../common/messages/cycle';
import { parsedOrDropped } from '../../common/parse-or-drop';
import { parseWorkflowInput } from '../../common/workflow-input';
import { writeAsWorker } from './board-write';
import { ChildCycle, type ChildCycleOutcome } from '../cycle/child-cycle';
import type { InvestigationResult } from './investigation';

/**
 * One research worker: claims its fact (unless the supervisor delegated it already), runs the investigation as a
 * child `investigationCycle` that ends with a `board_write`, and always writes: an investigation that ends without
 * an accepted write records UNVERIFIED with the reason, so no fact stays PENDING behind a finished worker.
 * Directives the supervisor forwards reach the investigation: held until it starts (its input carries them),
 * signalled after. A call the investigation waits on for a person goes on up to the supervisor, whose status names
 * the fact.
 */
export async function researchWorker(rawInput: WorkerInput): Promise<WorkerResult> {
  const input = parseWorkflowInput(WorkerInputSchema(), rawInput, ResearchError.BadInput, 'research worker input');
  const research = { supervisorId: input.supervisorId, workerId: input.workerId, token: input.token };
  const write = (draft: Draft, usage?: CycleResult['usageByModel']) => writeAsWorker(research, draft, usage);
  const investigation = new ChildCycle<InvestigationInput, InvestigationResult>({
    workflowType: 'investigationCycle',
    input: investigationInput(input, researchInvestigationId(input.workerId)),
    summary: `research: ${input.entity} / ${input.field}`,
    description: { name: 'research investigation', lead: [`### Fact\n${input.entity} / ${input.field}`] },
  });
  setHandler(directiveSignal, (raw) => {
    const text = parsedOrDropped(DirectiveTextSchema(), raw, 'directive');
    if (text !== undefined) investigation.forward(text);
  });
  const fact = { entity: input.entity, field: input.field };
  if (!input.delegated) {
    const claim = await write({ type: 'PENDING', body: { ...fact, assignedTo: input.workerId } });
    if (!claim.ok) return { workerId: input.workerId, wrote: `claim refused: ${claim.error}`, turns: 0 };
  }
  const child = await investigation.run();
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
function unwrittenReason(input: WorkerInput, child: ChildCycleOutcome<CycleResult>): string {
  if (!('result' in child)) {
    const why = 'error' in child ? child.error : 'it was cancelled';
    return `the investigation did not run: ${why}`.slice(0, 2000);
  }
  const { result } = child;
  if (result.outcome === 'max_iterations') return `no verified value within ${input.maxTurns} turns`;
  if (result.outcome === 'failed') return `the investigation failed: ${result.error ?? 'unknown error'}`.slice(0, 2000);
  return `the investigation finished without writing its fact to the board`;
}
