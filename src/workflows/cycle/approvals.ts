import { condition, log, setHandler } from '@temporalio/workflow';
import type { ParsedCycleInput } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import { newestWithin } from '../../core/payload';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type Decision,
  type DecisionArgs,
  ForwardedDecisionSchema,
  type PendingApproval,
} from '../../core/tools/approval';
import { ApprovalBook, describeDecision } from '../../core/tools/approval-book';
import {
  approvalCallId,
  deniedObservation,
  displayArgs,
  needsApproval,
  timeoutReason,
} from '../../core/tools/approval-policy';
import type { ApprovalPolicy } from '../../core/tools/descriptor';
import type { Observation } from '../../core/tools/observation';
import { relayApprovalWaits, showWaits, tellParent, waitingDetails } from './approval-notices';
import { openDecision, refused, validateDecision } from './open-decision';
import { cycleApprovalsQuery, cycleDecideUpdate, cycleDecisionSignal } from '../../common/messages/cycle';
import { parsedOrDropped } from '../../common/parse-or-drop';
import { telemetryHook } from '../../common/telemetry-hook';

/** Decisions a cycle's result keeps, newest last; the trace and the history hold every one. */
const KEPT_DECISIONS = 50;
const DECISIONS_BUDGET_BYTES = 64 * 1024;

/** What the approvals of a cycle need of it. */
export interface ApprovalHost {
  readonly cycleId: string;
  readonly input: ParsedCycleInput;
  /** What waits, in words, as the cycle's features say it (a stage, a research fact). */
  readonly waitContext: string | undefined;
  /** The catalogue's policy for a tool, if the cycle listed the catalogue and it has the tool. */
  policyOf(tool: string): ApprovalPolicy | undefined;
  /** Sets the Web UI's details (the prefix above the scratchpad) and reports to the timeline. */
  publish(label: string, prefix?: string): void;
}

/** A call that may run (with these arguments), or the observation of one that was denied. */
export type Approval =
  | { run: true; args: Record<string, unknown>; decision?: Decision }
  | { run: false; observation: Observation; decision: Decision };

/**
 * The calls of one cycle that wait for a person (design.md, Approval). The wait is workflow state: a worker or server
 * restart replays to the same wait, and the decision, whenever it comes, lands in it. Calls wait one at a time, in
 * the order the model made them (a response runs one work call; a `write_files` asks per file).
 */
export class CycleApprovals {
  private readonly book: ApprovalBook;
  private readonly decided: Decision[] = [];
  private readonly edits = new Map<string, Record<string, unknown>>();
  private readonly tickets = new Map<string, string>();
  /** Calls that waited at the latest iteration that had one: `<iteration>.<n>`. */
  private counted = { iteration: 0, count: 0 };

  constructor(private readonly host: ApprovalHost) {
    this.book = new ApprovalBook(`cycle ${host.cycleId}`);
  }

  /** The `decide` update, the `approvals` query, the agent's forwarded decisions, and child cycles' waits relayed up. */
  register(): void {
    setHandler(cycleApprovalsQuery, () => this.book.pending());
    setHandler(cycleDecideUpdate, (args) => this.decide(args), { validator: (args) => this.validate(args) });
    setHandler(cycleDecisionSignal, (raw) => this.receive(raw));
    relayApprovalWaits();
  }

  /** Decisions so far, for the trace: those after `mark`. */
  since(mark: number): Decision[] {
    return this.decided.slice(mark);
  }

  mark(): number {
    return this.decided.length;
  }

  /** What the cycle's result records: the newest decisions within a budget. */
  result(): { decisions?: Decision[] } {
    if (this.decided.length === 0) return {};
    return { decisions: newestWithin(this.decided.slice(-KEPT_DECISIONS), DECISIONS_BUDGET_BYTES) };
  }

  /**
   * Lets a call run at once, or makes it wait for a decision when its policy asks: approve (perhaps with edited
   * arguments), deny, or the timeout, which denies it. `question` tells the person why it asks again.
   */
  async request(action: Action, iteration: number, question?: string): Promise<Approval> {
    const { cycleId, input } = this.host;
    if (!needsApproval(action.tool, this.host.policyOf(action.tool), input.approve)) {
      return { run: true, args: action.args };
    }
    const timeoutMs = input.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const now = Date.now();
    const context = [this.host.waitContext, question].filter(Boolean).join('; ');
    const call: PendingApproval = {
      callId: this.nextCallId(iteration),
      cycleId,
      tool: action.tool,
      args: displayArgs(action.args),
      iteration,
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
      ...(context ? { context } : {}),
    };
    this.book.add(call);
    showWaits(this.book.pending(), () =>
      this.host.publish(`awaiting approval: ${call.tool} (call ${call.callId})`, waitingDetails(call)),
    );
    tellParent({ kind: 'waiting', call });
    const waited = telemetryHook()?.approvalWaiting({ tool: call.tool, callId: call.callId, cycleId });
    await condition(() => this.book.get(call.callId)?.decision !== undefined, timeoutMs);
    // A decision that landed in the same activation as the timer stands.
    if (!this.book.get(call.callId)?.decision) {
      this.settle(call.callId, { decision: 'timeout', by: 'timeout', reason: timeoutReason(timeoutMs) });
    }
    const decision = this.book.get(call.callId)?.decision as Decision;
    waited?.(decision);
    this.decided.push(decision);
    showWaits(this.book.pending(), () =>
      this.host.publish(`approval: ${call.tool} (call ${call.callId}) ${describeDecision(decision)}`),
    );
    const ticket = this.tickets.get(call.callId);
    tellParent({ kind: 'resolved', callId: call.callId, cycleId, decision, ...(ticket ? { ticket } : {}) });
    if (decision.decision !== 'approve') return { run: false, observation: deniedObservation(decision), decision };
    return { run: true, args: this.edits.get(call.callId) ?? action.args, decision };
  }

  private nextCallId(iteration: number): string {
    if (this.counted.iteration !== iteration) this.counted = { iteration, count: 0 };
    return approvalCallId(this.host.cycleId, iteration, ++this.counted.count);
  }

  /** `decide`'s validator: see {@link validateDecision}. */
  private validate(raw: unknown): void {
    validateDecision(this.book, raw);
  }

  /** `decide`: checks edited arguments against the tool's schema on the worker, then lets the waiting call go on. */
  private async decide(raw: DecisionArgs): Promise<Decision> {
    const { pending, decision, by, args, reason } = await openDecision(this.book, raw);
    const { callId } = pending;
    const settled = this.settle(callId, { decision, by, ...(reason ? { reason } : {}), ...(args ? { args } : {}) });
    if (!settled) {
      const now = this.book.get(callId)?.decision;
      throw refused(`call ${callId} was decided meanwhile: ${now ? describeDecision(now) : 'unknown'}`);
    }
    return settled;
  }

  /** A decision the agent forwarded (a signal: a bad or late one is dropped with a warning, never thrown). */
  private receive(raw: unknown): void {
    const forwarded = parsedOrDropped(ForwardedDecisionSchema(), raw, 'decision');
    if (!forwarded) return;
    const target = this.book.target({ callId: forwarded.callId });
    if (!target.ok) {
      log.warn(`dropped a forwarded decision: ${target.refusal}`);
      return;
    }
    const { callId, decision, args, reason, by, ticket } = forwarded;
    this.tickets.set(callId, ticket);
    if (!this.settle(callId, { decision, by, ...(reason ? { reason } : {}), ...(args ? { args } : {}) })) {
      this.tickets.delete(callId);
    }
  }

  /** Records the decision that applies to a waiting call; undefined when it was decided already. */
  private settle(
    callId: string,
    given: Pick<Decision, 'decision' | 'by' | 'reason'> & { args?: Record<string, unknown> },
  ): Decision | undefined {
    const entry = this.book.get(callId);
    if (!entry) return undefined;
    const { args, ...rest } = given;
    const decision: Decision = {
      callId,
      cycleId: this.host.cycleId,
      tool: entry.pending.tool,
      ...rest,
      at: new Date().toISOString(),
      ...(args ? { editedArgs: displayArgs(args) } : {}),
    };
    if (!this.book.settle(callId, decision)) return undefined;
    if (args) this.edits.set(callId, args);
    return decision;
  }
}
