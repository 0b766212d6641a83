import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { AgentCycleOutcome, SendResult } from '../core/agent/agent';
import { turnStreamQuery } from '../common/messages/cycle';
import { ENDING_EVENTS, type TurnEvent } from '../core/cycle/turn-stream';

export type { TurnEvent } from '../core/cycle/turn-stream';

/**
 * How often a follower asks for more: while events come; at most while none does; and at most before the first has
 * come, when the wait is the time to the first token a person watches (a query costs the worker little).
 */
const POLL_MS = { busy: 40, idle: 250, first: 60 };
/** How long a follower keeps asking a cycle whose workflow the server does not know yet. */
const NOT_FOUND_GRACE_MS = 10_000;
/** How long a follower keeps asking while queries time out (a worker busy, or restarting mid-turn). */
const TIMEOUT_GRACE_MS = 60_000;

/** gRPC's status code for a call that ran out of time (grpc/status.proto). */
const GRPC_DEADLINE_EXCEEDED = 4;

/** Whether a query failed for want of a worker in time (`DEADLINE_EXCEEDED`), which asking again may cure. */
function timedOut(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return (
    cause?.code === GRPC_DEADLINE_EXCEEDED || /timed out before a worker/.test(String((error as Error)?.message ?? ''))
  );
}

export interface FollowOptions {
  /** The offset to read from: 0 for the whole stream, or the offset after the last event seen, to resume. */
  from?: number;
  /** Stops following (the turn goes on). */
  signal?: AbortSignal;
}

/**
 * A turn's stream events from `options.from` on, following until the stream ends (design.md, Streaming): the cycle's
 * `turnStream` query, asked again from the next offset, quickly while events come and less often while none do. A
 * worker must answer the query, as for any query; the events themselves are rebuilt from history, so a reader who
 * reconnects, or comes after the turn has ended, reads the same events at the same offsets.
 */
export async function* followTurn(
  client: Client,
  cycleWorkflowId: string,
  options: FollowOptions = {},
): AsyncGenerator<TurnEvent> {
  const { signal } = options;
  let from = options.from ?? 0;
  let wait = POLL_MS.busy;
  const since = Date.now();
  let answered = Date.now();
  const handle = client.workflow.getHandle(cycleWorkflowId);
  for (;;) {
    signal?.throwIfAborted();
    let page;
    try {
      const query = () => handle.query(turnStreamQuery, { from });
      // A signal of its own for each query: the client adds a listener per call to the signal it is given, and keeps it.
      page = await (signal ? client.withAbortSignal(AbortSignal.any([signal]), query) : query());
      answered = Date.now();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // A cycle just started may not be visible to a query yet; a busy or restarting worker may answer the next one.
      const notYet = (error as Error).name === 'WorkflowNotFoundError' && Date.now() - since <= NOT_FOUND_GRACE_MS;
      if (!notYet && !(timedOut(error) && Date.now() - answered <= TIMEOUT_GRACE_MS)) throw error;
      page = { events: [], next: from, ended: false };
    }
    for (const event of page.events) yield event;
    from = page.next;
    if (page.ended) return;
    const idle = from === 0 ? POLL_MS.first : POLL_MS.idle;
    wait = page.events.length > 0 ? POLL_MS.busy : Math.min(idle, wait * 2);
    await sleep(wait, undefined, signal ? { signal } : undefined);
  }
}

/**
 * What a reader that showed `streamed` (the text since the last tool call or restart) still owes of the final
 * `reply`: the rest of it, or, when the stream did not bring its start (held, or past the caps), all of it on a line
 * of its own.
 */
export function unshownReply(streamed: string, reply: string): string {
  return reply.startsWith(streamed) ? reply.slice(streamed.length) : `\n${reply}`;
}

/** Whether `event` ends its stream. */
export function isEnding(event: TurnEvent): boolean {
  return ENDING_EVENTS.includes(event.type);
}

/** What `send` would have answered, from the event that ended the stream. */
export function sendResultOf(cycleId: string, event: TurnEvent): SendResult {
  if (event.type === 'done') return { reply: event.reply, cycleId, outcome: event.outcome as AgentCycleOutcome };
  if (event.type === 'error') return { reply: '', cycleId, outcome: 'failed', error: event.message };
  return { reply: '', cycleId, outcome: 'cancelled' };
}

/**
 * A chat turn's stream as the library hands it out: iterate it for every event (`for await`), or `textStream` for
 * the reply's text alone; `cycleId` once the turn has started, `result` once it has ended, as `send` answers.
 * The events are read once, in the background, whether or not anyone iterates; each iterator gets them all.
 */
export class TurnStream implements AsyncIterable<TurnEvent> {
  readonly cycleId: Promise<string>;
  readonly result: Promise<SendResult>;
  private readonly events: TurnEvent[] = [];
  private failure: { error: unknown } | undefined;
  private finished = false;
  private waiters: (() => void)[] = [];

  constructor(started: Promise<string>, follow: (cycleId: string) => AsyncIterable<TurnEvent>) {
    this.cycleId = started;
    this.result = this.pump(started, follow);
    // Read through `result` or the iterator; an unread failure is not an unhandled rejection.
    this.result.catch(() => undefined);
  }

  /** The reply's text as it comes: `text` events only, the text of a restarted call's first attempt included. */
  async *textStream(): AsyncGenerator<string> {
    for await (const event of this) if (event.type === 'text') yield event.text;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TurnEvent> {
    for (let index = 0; ;) {
      while (index < this.events.length) yield this.events[index++] as TurnEvent;
      if (this.failure) throw this.failure.error;
      if (this.finished) return;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private async pump(started: Promise<string>, follow: (cycleId: string) => AsyncIterable<TurnEvent>) {
    try {
      const cycleId = await started;
      for await (const event of follow(cycleId)) {
        this.events.push(event);
        this.notify();
        if (isEnding(event)) return sendResultOf(cycleId, event);
      }
      throw new Error(`the stream of ${cycleId} ended without its last event`);
    } catch (error) {
      this.failure = { error };
      throw error;
    } finally {
      this.finished = true;
      this.notify();
    }
  }
}
