import {
  getExternalWorkflowHandle,
  log,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ParsedCycleInput } from '../../core/cycle/input';
import { type ApprovalWait, ApprovalWaitSchema, type PendingApproval } from '../../core/tools/approval';
import { signalArgs } from '../../common/signal-args';
import { approvalWaitSignal } from '../../common/messages/cycle';
import { awaitingApprovalKey } from '../../common/search-attributes';

/** Which research fact or stage waits, in words, for the person deciding. */
export function contextOf(input: ParsedCycleInput, cycleId: string): string | undefined {
  const research = input.kind === 'investigation' || input.kind === 'subagent' ? input.research : undefined;
  if (research) return `research fact ${research.entity} / ${research.field} (${research.workerId})`;
  const cut = cycleId.lastIndexOf('/');
  if (input.kind === 'stage') return `stage ${cycleId.slice(cut + 1)} of ${cycleId.slice(0, Math.max(0, cut))}`;
  return undefined;
}

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
 * For a workflow that runs cycles (a staged run): registers the `approvalWait` signal and returns what its cycles wait
 * on now, so its own status can say which stage waits. A malformed signal is dropped with a warning.
 */
export function childApprovals(): () => PendingApproval[] {
  const waiting = new Map<string, PendingApproval>();
  setHandler(approvalWaitSignal, (raw) => {
    const wait = signalArgs(ApprovalWaitSchema(), raw, 'approvalWait');
    if (wait?.kind === 'waiting') waiting.set(`${wait.call.cycleId} ${wait.call.callId}`, wait.call);
    else if (wait) waiting.delete(`${wait.cycleId} ${wait.callId}`);
  });
  return () => [...waiting.values()];
}
