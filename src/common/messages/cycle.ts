import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { TraceEntry } from '../../core/cycle/input';
import type { StreamChunk, StreamPage, StreamPageArgs } from '../../core/cycle/turn-stream';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import type {
  ApprovalWait,
  Decision,
  DecisionArgs,
  ForwardedDecision,
  PendingApproval,
} from '../../core/tools/approval';

/** The state the cycle started from: the `<cycle>_before.yaml` snapshot (design.md, last_updated and snapshots). */
export const beforeQuery = defineQuery<Scratchpad>('before');
/** The live scratchpad, as of the last iteration. */
export const currentQuery = defineQuery<Scratchpad>('current');
/** The result state once the cycle has ended (the `<cycle>_after.yaml` snapshot), null before. */
export const afterQuery = defineQuery<Scratchpad | null>('after');
/** The trace: one entry per model call (design.md, Trace, inject, export and import). */
export const traceQuery = defineQuery<TraceEntry[]>('trace');
/** A user directive: the model sees it as `USER DIRECTIVE` from the cycle's next iteration on. */
export const directiveSignal = defineSignal<[string]>('directive');
/** Approves or denies a call this cycle waits on; a research worker's or a stage's cycle is decided here directly. */
export const cycleDecideUpdate = defineUpdate<Decision, [DecisionArgs]>('decide');
/** Calls this cycle waits on for a decision. */
export const cycleApprovalsQuery = defineQuery<PendingApproval[]>('approvals');
/** A decision the agent took (its `decide` update) for a call this cycle waits on; checked by the agent already. */
export const cycleDecisionSignal = defineSignal<[ForwardedDecision]>('decision');
/** Sent by a cycle to its parent (and relayed up by a parent cycle): a call of it starts or stops waiting. */
export const approvalWaitSignal = defineSignal<[ApprovalWait]>('approvalWait');
/** A batch of a model call's reply text, sent by the `callModel` activity to the cycle it serves. */
export const streamChunkSignal = defineSignal<[StreamChunk]>('streamChunk');
/** The turn's stream from an offset on (design.md, Streaming). */
export const turnStreamQuery = defineQuery<StreamPage, [StreamPageArgs?]>('turnStream');
