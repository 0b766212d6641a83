import {
  getExternalWorkflowHandle,
  log,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { type ApprovalWait, ApprovalWaitSchema, type PendingApproval } from '../../core/tools/approval';
import { parsedOrDropped } from '../../common/parse-or-drop';
import { approvalWaitSignal } from '../../common/messages/cycle';
import { awaitingApprovalKey } from '../../common/search-attributes';

/** The Web UI's lines above the scratchpad while a call waits: what, until when, and how to decide. */
export function waitingDetails(call: PendingApproval): string {
  const input = `'${JSON.stringify({ callId: call.callId, decision: 'approve' })}'`;
  return [
    `**Awaiting approval:** call ${call.callId}: \`${call.tool}\` ${call.args}`,
    `${call.context ? `${call.context}; ` : ''}requested ${call.requestedAt}, denied at ${call.expiresAt} unless decided.`,
    `Decide with the \`decide\` update, e.g. \`temporal workflow update execute --workflow-id ${call.cycleId} ` +
      `--name decide --input ${input}\`.`,
    '',
    '',
  ].join('\n');
}

/** The search attribute, memo and details (`publish`) that let a person find a wait with no worker running. */
export function showWaits(pending: PendingApproval[], publish: () => void): void {
  upsertSearchAttributes([{ key: awaitingApprovalKey, value: pending.length > 0 }]);
  upsertMemo({ approvals: pending });
  publish();
}

/** Tells the parent workflow, if any: an agent mirrors the wait; a parent cycle relays it to its own parent. */
export function tellParent(wait: ApprovalWait): void {
  const parent = workflowInfo().parent;
  if (!parent) return;
  // Best-effort: the parent may have ended, and the wait itself does not depend on it.
  getExternalWorkflowHandle(parent.workflowId)
    .signal(approvalWaitSignal, wait)
    .catch((error: unknown) => log.warn(`could not tell ${parent.workflowId} that a call is ${wait.kind}`, { error }));
}

/**
 * The one way a workflow hears that a call of a cycle below it starts or stops waiting for a person: the
 * `approvalWait` signal, parsed; a malformed one is dropped with a warning (a signal has no caller to refuse).
 */
export function onApprovalWaits(receive: (wait: ApprovalWait) => void): void {
  setHandler(approvalWaitSignal, (raw) => {
    const wait = parsedOrDropped(ApprovalWaitSchema(), raw, 'approvalWait');
    if (wait) receive(wait);
  });
}

/** For a workflow between its child cycles and its own parent: every wait goes on up, unchanged. */
export function relayApprovalWaits(): void {
  onApprovalWaits(tellParent);
}

/**
 * What the child cycles of a workflow that answers for them itself (a staged run) wait on now, so its own status can
 * say which stage waits.
 */
export class WaitingCalls {
  private readonly waiting = new Map<string, PendingApproval>();

  receive(wait: ApprovalWait): void {
    if (wait.kind === 'waiting') this.waiting.set(`${wait.call.cycleId} ${wait.call.callId}`, wait.call);
    else this.waiting.delete(`${wait.cycleId} ${wait.callId}`);
  }

  pending(): PendingApproval[] {
    return [...this.waiting.values()];
  }
}
