import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AgentSettings,
  AgentStatus,
  CancelCycleArgs,
  CycleRecord,
  DirectiveRecord,
  EnqueueArgs,
  InjectArgs,
  RunCycleArgs,
  SendArgs,
  SendResult,
  TurnStart,
  WakeArgs,
} from '../../core/agent/agent';
import type { WaitForCycleArgs } from '../../core/agent/cycle-wait';
import type { ReplyArgs } from '../../core/agent/reply';
import type { RewindArgs, RewindRecord } from '../../core/agent/time-travel';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import type { Decision, DecisionArgs, PendingApproval } from '../../core/tools/approval';

/** A chat turn: respond, then reflect; returns the reply as soon as respond ends (reflect runs after). */
export const sendUpdate = defineUpdate<SendResult, [SendArgs]>('send');
/**
 * A chat turn whose reply is read from its stream (design.md, Streaming): answers with the turn's cycle id once its
 * cycle has started; the cycle's `turnStream` query then has the reply as it comes.
 */
export const startTurnUpdate = defineUpdate<TurnStart, [SendArgs]>('startTurn');
/** A task cycle with optional tasks enqueued first; returns when it has finished. */
export const runCycleUpdate = defineUpdate<CycleRecord, [RunCycleArgs]>('runCycle');
/** Adds tasks and goals to the active scratchpad. */
export const enqueueUpdate = defineUpdate<{ current_task: string | null; pending_actions: string[] }, [EnqueueArgs]>(
  'enqueue',
);
/** Sets one section through safe apply (`scratchpad inject`); returns the section's new content. */
export const injectUpdate = defineUpdate<string, [InjectArgs]>('inject');
/** Replaces the active scratchpad (`scratchpad import`). */
export const importUpdate = defineUpdate<void, [Scratchpad]>('import');
export const configureUpdate = defineUpdate<AgentSettings, [Partial<AgentSettings>]>('configure');
/**
 * Cancels the cycle that runs now (refused for any other), leaving the scratchpad as it was; resolves once the agent
 * has recorded it (outcome `cancelled`, or the cycle's own when it ended first). A waiting `send` answers `cancelled`.
 */
export const cancelCycleUpdate = defineUpdate<CycleRecord, [CancelCycleArgs]>('cancelCycle');
/**
 * Waits until the agent has adopted one of its cycles' result (memory, record and status updated) and returns the
 * cycle's record: at once for a cycle already adopted, refused for one it never started or no longer keeps.
 */
export const waitForCycleUpdate = defineUpdate<CycleRecord, [WaitForCycleArgs]>('waitForCycle');

/** Runs a task cycle when tasks are pending (schedules send it with signal-with-start). */
export const wakeSignal = defineSignal<[WakeArgs?]>('wake');
/** A user directive: forwarded to the running cycle, or held for the next one (the cycle's own signal). */
export { directiveSignal } from './cycle';

export const scratchpadQuery = defineQuery<Scratchpad>('scratchpad');
export const cyclesQuery = defineQuery<CycleRecord[]>('cycles');
export const statusQuery = defineQuery<AgentStatus>('status');
export const directivesQuery = defineQuery<DirectiveRecord[]>('directives');

/** Approves or denies a tool call one of the agent's cycles waits on (validated: unknown or decided ids refused). */
export const decideUpdate = defineUpdate<Decision, [DecisionArgs]>('decide');
/** Tool calls the agent's running cycle waits on for a decision. */
export const approvalsQuery = defineQuery<PendingApproval[]>('approvals');

/** A chat cycle's reply, sent to its agent once respond ends, so `send` answers before reflect (the reply first). */
export const replySignal = defineSignal<[ReplyArgs]>('reply');
/**
 * Adopts the after-state of one of the agent's own cycles, read from its history by the client, and records the
 * rewind; refused while a cycle runs. Later cycles stay in history. Returns the record.
 */
export const rewindUpdate = defineUpdate<RewindRecord, [RewindArgs]>('rewind');
