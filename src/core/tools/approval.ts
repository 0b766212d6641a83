import { z } from 'zod';
import { getterOf } from '../shareable';

/*
 * Durable approvals (issue: a person decides before risky tools run). The contract between the workflows, the
 * client and the command line: what a pending call looks like, what a decision carries, what deciding returns.
 */

/** Longest a pending call's arguments are shown (JSON, cut): the call keeps them whole. */
export const APPROVAL_ARGS_DISPLAY_CHARS = 2000;
/** How long a call waits for a decision unless the agent's settings say otherwise; then it is denied. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** A tool call waiting for a person's decision. */
export const PendingApprovalSchema = getterOf(
  z.object({
    /** Unique within its cycle, stable across replays: `<iteration>.<n>`-like, chosen by the cycle. */
    callId: z.string(),
    /** The cycle (workflow id) that waits. */
    cycleId: z.string(),
    tool: z.string(),
    /** The arguments as the model gave them, as JSON cut to {@link APPROVAL_ARGS_DISPLAY_CHARS}. */
    args: z.string(),
    iteration: z.number(),
    /** ISO time (workflow time) the wait began. */
    requestedAt: z.string(),
    /** ISO time the wait ends as a denial. */
    expiresAt: z.string(),
    /** For a research worker or a stage: which fact or stage waits, in words. */
    context: z.string().optional(),
  }),
);
export type PendingApproval = z.infer<ReturnType<typeof PendingApprovalSchema>>;

/** The `decide` update's argument: approve (optionally with edited arguments) or deny, by whom. */
export const DecisionArgsSchema = getterOf(
  z
    .strictObject({
      /** Left out: the one pending call, refused when none or several wait. */
      callId: z.string().min(1).max(200).optional(),
      decision: z.enum(['approve', 'deny']),
      /** Approve only: the arguments to run with instead, checked against the tool's schema. */
      args: z.record(z.string(), z.unknown()).optional(),
      /** Deny only: shown to the model as `denied by <by>: <reason>`. */
      reason: z.string().trim().min(1).max(1000).optional(),
      /** Who decided, as recorded in the audit trail; the client fills in the OS user when left out. */
      by: z.string().trim().min(1).max(200).optional(),
    })
    .refine((value) => value.decision === 'approve' || value.args === undefined, {
      message: 'only an approval may carry edited arguments',
    }),
);
export type DecisionArgs = z.input<ReturnType<typeof DecisionArgsSchema>>;

/** A decision as recorded (trace, timeline, snapshots) and as `decide` returns it. */
export const DecisionSchema = getterOf(
  z.object({
    callId: z.string(),
    cycleId: z.string(),
    tool: z.string(),
    decision: z.enum(['approve', 'deny', 'timeout']),
    by: z.string(),
    at: z.string(),
    reason: z.string().optional(),
    /** The edited arguments' JSON, cut for display, when the person changed them. */
    editedArgs: z.string().optional(),
  }),
);
export type Decision = z.infer<ReturnType<typeof DecisionSchema>>;

/** The failure type of a `decide` that was accepted but could not apply (edited arguments the tool refuses, ...). */
export const APPROVAL_REFUSED = 'ApprovalError.Refused';

/** Most edited arguments may weigh, as JSON: they travel to the tool's activity and into history. */
export const MAX_EDITED_ARGS_BYTES = 64 * 1024;

/** A decision the agent forwards to the cycle that waits (the `decision` signal), checked already by the agent. */
export const ForwardedDecisionSchema = getterOf(
  z.strictObject({
    callId: z.string().min(1).max(200),
    decision: z.enum(['approve', 'deny']),
    args: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().max(1000).optional(),
    by: z.string().min(1).max(200),
    /** Names this forwarding, so the agent knows its decision is the one that applied. */
    ticket: z.string().min(1).max(200),
  }),
);
export type ForwardedDecision = z.infer<ReturnType<typeof ForwardedDecisionSchema>>;

/**
 * What a cycle tells its parent (the `approvalWait` signal) when a call starts or stops waiting; a cycle relays its
 * sub-agents' the same way, so an agent sees every call its tree of cycles waits on.
 */
export const ApprovalWaitSchema = getterOf(
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('waiting'), call: PendingApprovalSchema() }),
    z.strictObject({
      kind: z.literal('resolved'),
      callId: z.string().max(200),
      cycleId: z.string().max(1000),
      decision: DecisionSchema(),
      /** The forwarding that applied, when the decision came through the agent. */
      ticket: z.string().max(200).optional(),
    }),
  ]),
);
export type ApprovalWait = z.infer<ReturnType<typeof ApprovalWaitSchema>>;
