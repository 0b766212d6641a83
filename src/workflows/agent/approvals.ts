import {
  condition,
  getExternalWorkflowHandle,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { AgentStatus } from '../../core/agent/agent';
import { type ApprovalWait, type Decision, type DecisionArgs, type PendingApproval } from '../../core/tools/approval';
import { ApprovalBook, describeDecision } from '../../core/tools/approval-book';
import { approvalsQuery, decideUpdate, statusQuery } from '../../common/messages/agent';
import { cycleDecisionSignal } from '../../common/messages/cycle';
import { failureMessage } from '../../common/failure';
import { awaitingApprovalKey } from '../../common/search-attributes';
import { openDecision, refused, validateDecision } from '../cycle/open-decision';
import { onApprovalWaits } from '../cycle/approval-notices';

/** How long `decide` waits for the cycle to say the decision applied; it answers within a workflow task or two. */
const CONFIRMATION_TIMEOUT = '5 minutes';

/**
 * The agent's side of approvals (design.md, Approval): a mirror of the calls its cycles (sub-agents included, relayed
 * by their parents) wait on, kept from their `approvalWait` signals, and the `decide` update, which checks a decision,
 * forwards it to the cycle that waits and answers with the decision that applied. The mirror is refused-first: a call
 * is marked as being decided before anything is awaited, so of two concurrent decisions the second is refused.
 */
export class AgentApprovals {
  private readonly book: ApprovalBook;
  /** Decisions the cycles applied, by cycle and call, with the ticket of the forwarding that brought each, if any. */
  private readonly applied = new Map<string, { decision: Decision; ticket?: string }>();
  /** Calls whose `decide` waits for the cycle's confirmation: what applied stays for them past the cycle's end. */
  private readonly awaited = new Set<string>();
  private shown = false;

  constructor(agentId: string) {
    this.book = new ApprovalBook(`agent ${agentId}`);
  }

  /** Calls waiting now, for `status`: absent when none waits, so the status of an agent without approvals is unchanged. */
  statusField(): Pick<AgentStatus, 'approvals'> {
    const pending = this.book.pending();
    return pending.length > 0 ? { approvals: pending } : {};
  }

  /** The cycle ended: whatever it still listed waits no more (a cycle cancelled or failed mid-wait). */
  cycleEnded(): void {
    this.book.clear();
    for (const key of this.applied.keys()) if (!this.awaited.has(key)) this.applied.delete(key);
    this.show();
  }

  /** A call of the running cycle (or of its sub-agents, relayed) starts or stops waiting. */
  receive(wait: ApprovalWait): void {
    if (wait.kind === 'waiting') this.book.add(wait.call);
    else {
      this.book.settle(wait.callId, wait.decision);
      const key = keyOf(wait.cycleId, wait.callId);
      this.applied.set(key, { decision: wait.decision, ...(wait.ticket ? { ticket: wait.ticket } : {}) });
    }
    this.show();
  }

  pending(): PendingApproval[] {
    return this.book.pending();
  }

  /** `decide`'s validator: see {@link validateDecision}. */
  validate(raw: unknown): void {
    validateDecision(this.book, raw);
  }

  /** `decide`: checks edited arguments, forwards the decision to the waiting cycle, and returns what applied. */
  async decide(raw: DecisionArgs): Promise<Decision> {
    const { pending, decision, by, args, reason } = await openDecision(this.book, raw);
    const { callId, cycleId } = pending;
    const ticket = uuid4();
    const forwarded = { callId, decision, by, ticket, ...(args ? { args } : {}), ...(reason ? { reason } : {}) };
    try {
      await getExternalWorkflowHandle(cycleId).signal(cycleDecisionSignal, forwarded);
    } catch (error) {
      this.book.abandon(callId);
      throw refused(`not applied: cycle ${cycleId} could not be reached: ${failureMessage(error)}`);
    }
    const key = keyOf(cycleId, callId);
    this.awaited.add(key);
    await condition(() => this.applied.has(key) || !this.book.get(callId), CONFIRMATION_TIMEOUT);
    const applied = this.applied.get(key);
    this.awaited.delete(key);
    this.applied.delete(key);
    if (!applied) {
      throw refused(`cycle ${cycleId} did not confirm the decision on call ${callId}: see \`approvals\` and its trace`);
    }
    if (applied.ticket !== ticket)
      throw refused(`call ${callId} was decided otherwise: ${describeDecision(applied.decision)}`);
    return applied.decision;
  }

  /** The search attribute and memo that let `approvals` and the Web UI find the agent with no worker running. */
  private show(): void {
    const pending = this.book.pending();
    if (pending.length === 0 && !this.shown) return;
    upsertSearchAttributes([{ key: awaitingApprovalKey, value: pending.length > 0 }]);
    upsertMemo({ approvals: pending });
    setCurrentDetails(pending.map(waitingLine).join('\n'));
    this.shown = pending.length > 0;
  }
}

/** One waiting call as the agent's details in the Web UI show it. */
function waitingLine(call: PendingApproval): string {
  const where = call.context ? `, ${call.context}` : '';
  return `**Awaiting approval:** call ${call.callId} in ${call.cycleId}${where}: \`${call.tool}\` ${call.args} (denied at ${call.expiresAt} unless decided)`;
}

function keyOf(cycleId: string, callId: string): string {
  return `${cycleId} ${callId}`;
}

/**
 * Registers the agent's approval messages, after the home's handlers: its `status` gains the calls that wait. Returns
 * the mirror, which the agent's loop tells when a cycle ends.
 */
export function registerApprovals(agentId: string, status: () => AgentStatus): AgentApprovals {
  const approvals = new AgentApprovals(agentId);
  setHandler(statusQuery, () => ({ ...status(), ...approvals.statusField() }));
  setHandler(approvalsQuery, () => approvals.pending());
  setHandler(decideUpdate, (args) => approvals.decide(args), { validator: (args) => approvals.validate(args) });
  onApprovalWaits((wait) => approvals.receive(wait));
  return approvals;
}
