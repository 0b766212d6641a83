import { type ChildWorkflowHandle, isCancellation, log, setHandler } from '@temporalio/workflow';
import type { Draft } from '../../core/research/board';
import { type CycleResult, DirectiveTextSchema, MAX_CYCLE_DIRECTIVES } from '../../core/cycle/input';
import { totalUsage } from '../../core/cycle/model';
import { type WorkerInput, WorkerInputSchema, type WorkerResult } from '../../core/research/run';
import { investigationInput } from '../../core/research/investigation';
import { researchInvestigationId } from '../../common/ids';
import { ResearchError } from '../../common/failure-types';
import { directiveSignal } from '../../common/messages/cycle';
import { failureMessage } from '../../common/failure';
import type { AgentCycleWorkflow } from '../../common/workflow-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import { writeAsWorker } from './board-write';
import { startCycleChild } from '../cycle/start-cycle-child';
import { relayApprovalWaits } from './approvals';

/**
 * One research worker: claims its fact (unless the supervisor delegated it already), runs the investigation as a
 * child cycle that ends with a `board_write`, and always writes: an investigation that ends without an accepted
 * write records UNVERIFIED with the reason, so no fact stays PENDING behind a finished worker. Directives the
 * supervisor forwards reach the investigation: held until it starts (its input carries them), signalled after. A
 * call the investigation waits on for a person is relayed to the supervisor, whose status names the fact.
 */
export async function researchWorker(rawInput: WorkerInput): Promise<WorkerResult> {
  const input = parseWorkflowInput(WorkerInputSchema(), rawInput, ResearchError.BadInput, 'research worker input');
  const research = { supervisorId: input.supervisorId, workerId: input.workerId, token: input.token };
  const write = (draft: Draft, usage?: CycleResult['usageByModel']) => writeAsWorker(research, draft, usage);
  const directives = new DirectiveRelay();
  setHandler(directiveSignal, (raw) => directives.receive(raw));
  relayApprovalWaits();
  const fact = { entity: input.entity, field: input.field };
  if (!input.delegated) {
    const claim = await write({ type: 'PENDING', body: { ...fact, assignedTo: input.workerId } });
    if (!claim.ok) return { workerId: input.workerId, wrote: `claim refused: ${claim.error}`, turns: 0 };
  }
  const cycleId = researchInvestigationId(input.workerId);
  const child = await runInvestigation(input, cycleId, directives);
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

/** Directives for the investigation: held while it has not started, sent on to its cycle once it has. */
class DirectiveRelay {
  private readonly held: string[] = [];
  private cycle?: ChildWorkflowHandle<AgentCycleWorkflow>;

  /** A signal has no validator: a malformed one is dropped with a log line, never a throw. */
  receive(raw: unknown): void {
    const parsed = DirectiveTextSchema().safeParse(raw);
    if (!parsed.success) return void log.warn('a research worker dropped a malformed directive');
    if (this.cycle) this.send(this.cycle, parsed.data);
    else if (this.held.length < MAX_CYCLE_DIRECTIVES) this.held.push(parsed.data);
  }

  /** The directives held so far, for the investigation's input. */
  take(): string[] {
    return this.held.splice(0);
  }

  /** The investigation started: what arrived while it was starting goes to it now, and so does all that follows. */
  started(cycle: ChildWorkflowHandle<AgentCycleWorkflow>): void {
    this.cycle = cycle;
    for (const text of this.take()) this.send(cycle, text);
  }

  private send(cycle: ChildWorkflowHandle<AgentCycleWorkflow>, text: string): void {
    // An investigation that has just ended cannot take it; nothing waits on the signal.
    cycle.signal(directiveSignal, text).catch((error: unknown) => {
      log.info(`directive not forwarded to ${cycle.workflowId}: ${failureMessage(error)}`);
    });
  }
}

/** Runs the investigation to its result; one that could not start or run is its error message, never a throw. */
async function runInvestigation(
  input: WorkerInput,
  cycleId: string,
  directives: DirectiveRelay,
): Promise<{ result: CycleResult } | { error: string }> {
  try {
    const held = directives.take();
    const cycleInput = { ...investigationInput(input, cycleId), ...(held.length > 0 && { directives: held }) };
    const handle = await startCycleChild(cycleInput, `research: ${input.entity} / ${input.field}`);
    directives.started(handle);
    return { result: await handle.result() };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { error: failureMessage(error) };
  }
}

/** Why the investigation wrote nothing: out of turns, finished without a write, failed, or never ran. */
function unwrittenReason(input: WorkerInput, child: { result: CycleResult } | { error: string }): string {
  if ('error' in child) return `the investigation did not run: ${child.error}`.slice(0, 2000);
  const { result } = child;
  if (result.outcome === 'max_iterations') return `no verified value within ${input.maxTurns} turns`;
  if (result.outcome === 'failed') return `the investigation failed: ${result.error ?? 'unknown error'}`.slice(0, 2000);
  return `the investigation finished without writing its fact to the board`;
}
