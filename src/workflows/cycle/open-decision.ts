import { ApplicationFailure, CancellationScope, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  APPROVAL_REFUSED,
  type DecisionArgs,
  DecisionArgsSchema,
  MAX_EDITED_ARGS_BYTES,
  type PendingApproval,
} from '../../core/tools/approval';
import { payloadBytes } from '../../core/payload';
import type { ApprovalBook } from '../../core/tools/approval-book';
import { failureMessage } from '../../common/failure';
import { describeIssues } from '../../common/workflow-input';

// Edited arguments are checked against the tool's schema, which only the worker holds.
const { checkToolArgs } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});

/** A refusal of `decide` after its validator passed: the caller sees it as the update's failure. */
export function refused(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, APPROVAL_REFUSED);
}

/**
 * `decide`'s validator, on the agent and on the cycle alike: refuses a malformed decision, edited arguments past
 * their cap, and unknown, decided or contested calls, changing nothing.
 */
export function validateDecision(book: ApprovalBook, raw: unknown): void {
  const parsed = DecisionArgsSchema().safeParse(raw);
  if (!parsed.success) throw new Error(describeIssues(parsed.error));
  const target = book.target(parsed.data);
  if (!target.ok) throw new Error(target.refusal);
  if (parsed.data.args && payloadBytes(parsed.data.args) > MAX_EDITED_ARGS_BYTES) {
    throw new Error(`edited arguments are at most ${MAX_EDITED_ARGS_BYTES} bytes of JSON`);
  }
}

/** A decision taken up by {@link openDecision}: its call, now marked as being decided, and what was decided. */
export interface OpenDecision {
  pending: PendingApproval;
  decision: 'approve' | 'deny';
  by: string;
  args?: Record<string, unknown>;
  reason?: string;
}

/**
 * Takes up a `decide` on the agent or on the cycle alike: parses it, finds its call, marks the call as being decided
 * before anything is awaited (so of two concurrent decisions the second is refused), then checks edited arguments.
 * A refusal throws and leaves the book as it was.
 */
export async function openDecision(book: ApprovalBook, raw: DecisionArgs): Promise<OpenDecision> {
  const parsed = DecisionArgsSchema().safeParse(raw);
  if (!parsed.success) throw refused(describeIssues(parsed.error));
  const target = book.target(parsed.data);
  if (!target.ok) throw refused(target.refusal);
  const { pending } = target.entry;
  const { decision, args, reason } = parsed.data;
  const by = parsed.data.by ?? 'unknown';
  book.begin(pending.callId, by);
  if (args) {
    // Not cancelled mid-way, as gcObservations (archive-check.ts): a replay must find its marker.
    const checking = CancellationScope.nonCancellable(() => checkToolArgs({ name: pending.tool, args }));
    const checked = await checking.catch((error: unknown) => ({
      ok: false as const,
      error: `the arguments could not be checked: ${failureMessage(error)}`,
    }));
    if (!checked.ok) {
      book.abandon(pending.callId);
      throw refused(`not applied: ${checked.error}`);
    }
  }
  return { pending, decision, by, ...(args ? { args } : {}), ...(reason ? { reason } : {}) };
}
