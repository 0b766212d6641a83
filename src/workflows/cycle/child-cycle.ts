import {
  ApplicationFailure,
  CancellationScope,
  type ChildWorkflowHandle,
  ParentClosePolicy,
  isCancellation,
  log,
  startChild,
} from '@temporalio/workflow';
import type { CycleInput, CycleResult } from '../../core/cycle/input';
import { directiveRefusal } from '../../core/cycle/directive-caps';
import type { ApprovalWait } from '../../core/tools/approval';
import { payloadRefusal } from '../../core/payload';
import { headCodePoints } from '../../core/text';
import { CycleError } from '../../common/failure-types';
import { failureMessage } from '../../common/failure';
import { directiveSignal } from '../../common/messages/cycle';
import { agentIdKey } from '../../common/search-attributes';
import { type CycleDescription, askedDetails } from './cycle-details';
import { onApprovalWaits, tellParent } from './approval-notices';

/** A child cycle to start: the feature's workflow type and its input, the base input extended. */
export interface ChildCycleStart<I extends CycleInput> {
  workflowType: string;
  input: I & { cycleId: string };
  /** The Web UI's one line for it. */
  summary: string;
  /** What it is and what it was asked, its static details in the Web UI. */
  description: CycleDescription;
  /** Who hears the calls it waits on for a person; absent, they go on up to this workflow's parent. */
  approvalWaits?: (wait: ApprovalWait) => void;
}

/** How a child cycle ended: its result, the reason it could not start or run, or cancelled through its handle. */
export type ChildCycleOutcome<R> = { result: R } | { error: string } | { cancelled: true };

/**
 * The one way a workflow runs a child cycle (an agent's cycle, a sub-agent, a research investigation, a stage). By
 * workflow type, so the starter's module graph stays without the child's (workflows/index.ts); ended with its
 * parent; found by its agent's id in visibility; summarised in the Web UI with what it was asked as its details.
 * Directives given while it runs are held until it has started, then signalled, under the one directive cap; the
 * calls it waits on for a person reach whoever the starter names; a failure to start or run is its outcome, never a
 * throw; {@link cancel} cancels it and nothing else.
 */
export class ChildCycle<I extends CycleInput, R extends CycleResult = CycleResult> {
  /** Directives given to it since it was made, in order. */
  readonly forwarded: string[] = [];
  private handle?: ChildWorkflowHandle<(input: I) => Promise<R>>;
  private readonly scope = new CancellationScope();
  private cancelRequested = false;

  constructor(private readonly start: ChildCycleStart<I>) {}

  get input(): I & { cycleId: string } {
    return this.start.input;
  }

  get cycleId(): string {
    return this.start.input.cycleId;
  }

  /** Directives given to this cycle: at its start, then forwarded while it runs. */
  get given(): string[] {
    return [...(this.start.input.directives ?? []), ...this.forwarded];
  }

  /** A directive for the cycle, shown at its next iteration; past the cap it is dropped, and the reason returned. */
  forward(text: string): string | null {
    const refusal = directiveRefusal(this.given, text);
    if (refusal) {
      log.warn(`dropped a directive for ${this.cycleId}: ${refusal}`);
      return refusal;
    }
    this.forwarded.push(text);
    if (this.handle) this.signal(this.handle, text);
    return null;
  }

  /** Asks the cycle to stop: its workflow is cancelled, and {@link run} resolves `cancelled` when it has. */
  cancel(): void {
    this.cancelRequested = true;
    this.scope.cancel();
  }

  /** Starts the cycle and waits for its outcome, in a scope of its own so cancelling it touches nothing else. */
  async run(): Promise<ChildCycleOutcome<R>> {
    const { workflowType, input, summary, description, approvalWaits } = this.start;
    onApprovalWaits(approvalWaits ?? tellParent);
    try {
      return await this.scope.run(async () => {
        // What was forwarded before the start is in its input: the cycle shows it from its first iteration.
        const included = this.forwarded.length;
        const args = included > 0 ? { ...input, directives: this.given } : input;
        // Past the budget the server would terminate the child at its start, and its starter would never hear why.
        const refusal = payloadRefusal(args, 'the cycle input');
        if (refusal) throw ApplicationFailure.nonRetryable(refusal, CycleError.BadInput);
        const handle = await startChild<(input: I) => Promise<R>>(workflowType, {
          workflowId: input.cycleId,
          args: [args],
          parentClosePolicy: ParentClosePolicy.TERMINATE,
          typedSearchAttributes: [{ key: agentIdKey, value: input.agentId }],
          staticSummary: headCodePoints(summary, 120),
          // What it was asked, readable in the Web UI with no worker running (its memo says what became of it).
          staticDetails: askedDetails(args, description),
        });
        // Forwarded while it was starting: sent now, as everything forwarded from here on.
        for (const text of this.forwarded.slice(included)) this.signal(handle, text);
        this.handle = handle;
        return { result: await handle.result() };
      });
    } catch (error) {
      if (this.cancelRequested && isCancellation(error)) return { cancelled: true };
      if (isCancellation(error)) throw error;
      return { error: failureMessage(error) };
    }
  }

  private signal(handle: ChildWorkflowHandle<(input: I) => Promise<R>>, text: string): void {
    // A cycle that has just ended cannot take it; nothing waits on the signal.
    handle.signal(directiveSignal, text).catch((error: unknown) => {
      log.info(`directive not forwarded to ${handle.workflowId}: ${failureMessage(error)}`);
    });
  }
}
