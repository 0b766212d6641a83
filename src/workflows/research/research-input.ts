import { log } from '@temporalio/workflow';
import {
  type ParsedResearchInput,
  type ResearchHandover,
  ResearchHandoverSchema,
  ResearchInputSchema,
  UserDirectiveSchema,
  type WorkerInput,
  WorkerInputSchema,
} from '../../core/research/run';
import { payloadRefusal } from '../../core/payload';
import { ResearchError } from '../../common/failure-types';
import { describeIssues, parseWorkflowInput } from '../../common/workflow-input';
import type { ResearchRun } from './research-run';
import { telemetryHook } from '../../common/telemetry-hook';

/**
 * The supervisor's two arguments, its input and what a continue-as-new hands over, each checked at its edge. A first
 * start has no handover: absent, or null from a client that spells it out.
 */
export function parseResearchStart(
  rawInput: unknown,
  rawHandover: unknown,
): { input: ParsedResearchInput; handover?: ResearchHandover } {
  const input = parseWorkflowInput(ResearchInputSchema(), rawInput, ResearchError.BadInput, 'research input');
  if (rawHandover === undefined || rawHandover === null) return { input };
  const handover = parseWorkflowInput(
    ResearchHandoverSchema(),
    rawHandover,
    ResearchError.BadInput,
    'research handover',
  );
  return { input, handover: handover as ResearchHandover };
}

/**
 * Why the supervisor may not continue as new with `handover`, or null: the next run parses it as its second
 * argument (a handover it refused would fail that run at its start), and the server refuses one over the budget.
 */
export function handoverRefusal(handover: ResearchHandover): string | null {
  const size = payloadRefusal(handover, 'the handover');
  if (size) return size;
  const parsed = ResearchHandoverSchema().safeParse(handover);
  return parsed.success ? null : `invalid handover: ${describeIssues(parsed.error)}`;
}

/** Why a worker may not be started with `input`, or null: the same checks as the worker's own at its start. */
export function workerInputRefusal(input: WorkerInput): string | null {
  const size = payloadRefusal(input, 'the worker input');
  if (size) return size;
  const parsed = WorkerInputSchema().safeParse(input);
  return parsed.success ? null : `invalid worker input: ${describeIssues(parsed.error)}`;
}

/**
 * The `directive` signal, checked in its handler (a signal has no validator, and a throw here would fail the
 * workflow task for good): a malformed or oversized one, and one past a cap, is dropped with a log line and a note
 * the user reads in the run's status.
 */
export function receiveDirective(run: ResearchRun, raw: unknown): void {
  const parsed = UserDirectiveSchema().safeParse(raw);
  const dropped = parsed.success
    ? run.directive(parsed.data.author, parsed.data.draft, Date.now(), parsed.data.id)
    : run.note('directive:malformed', `a malformed directive was dropped: ${describeIssues(parsed.error)}`);
  if (dropped) telemetryHook()?.directiveDropped();
  // A flood counts up one note: the log hears its first and every hundredth.
  if (dropped && (dropped.count === 1 || dropped.count % 100 === 0)) {
    log.warn(`research ${run.input.runId}: ${dropped.text} (${dropped.count} so far)`);
  }
}
