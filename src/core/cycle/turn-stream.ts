import { z } from 'zod';
import { getterOf } from '../shareable';
import { headCodePoints } from '../text';

/**
 * A chat turn's durable stream (design.md, Streaming): the reply's text as the model writes it, its tool calls as they
 * run, and how the turn ended, each event with its offset. The cycle workflow holds it; the `callModel` activity
 * sends the text in batches (the `streamChunk` signal), and clients read from any offset with the `turnStream` query.
 */
export type TurnEvent =
  | { offset: number; type: 'text'; text: string }
  | { offset: number; type: 'tool'; phase: 'start' | 'end'; name: string; args?: string; ok?: boolean }
  /** The model call was tried again (a worker died mid-reply, a retryable error): the text since the last tool
   * event is void, and the new attempt's text follows. */
  | { offset: number; type: 'restart'; attempt: number }
  | { offset: number; type: 'done'; reply: string; outcome: string; cut?: boolean }
  | { offset: number; type: 'error'; message: string }
  | { offset: number; type: 'cancelled' };

/** The event types that end a stream. */
export const ENDING_EVENTS: readonly TurnEvent['type'][] = ['done', 'error', 'cancelled'];

/** Characters of text one stream holds at most: past it, text stops and `done` carries the whole reply. */
export const MAX_STREAM_TEXT_CHARS = 64_000;
/** Most events one stream holds: each batch of text is one, so a long reply in small batches stays bounded. */
export const MAX_STREAM_EVENTS = 2_000;
/** Characters of a tool call's arguments an event shows. */
export const TOOL_ARGS_CHARS = 200;
/** Characters of text one `turnStream` answer carries at most (a client asks again from the next offset). */
const PAGE_CHARS = 32_000;

/** One batch of a model call's text, from the activity: `seq` orders an attempt's batches from 0. */
export const StreamChunkSchema = getterOf(
  z.object({
    call: z.number().int().min(1).max(10_000),
    attempt: z.number().int().min(1).max(1_000),
    seq: z.number().int().min(0).max(1_000_000),
    text: z.string().max(16_000),
  }),
);
export type StreamChunk = z.infer<ReturnType<typeof StreamChunkSchema>>;

export const StreamPageArgsSchema = getterOf(
  z.object({ from: z.number().int().min(0).default(0) }).default({ from: 0 }),
);
export type StreamPageArgs = z.input<ReturnType<typeof StreamPageArgsSchema>>;

/** Events from an offset on; `ended` once the stream's last event is among them or before. */
export interface StreamPage {
  events: TurnEvent[];
  ended: boolean;
  /** The offset to ask from next. */
  next: number;
}

type NewEvent = TurnEvent extends infer Event ? (Event extends TurnEvent ? Omit<Event, 'offset'> : never) : never;

/**
 * The stream's events and what decides them: which model call and attempt the text comes from, so a batch sent twice
 * counts once, a late batch of an earlier attempt is dropped, and a new attempt is announced by `restart`.
 */
export class TurnStreamLog {
  readonly events: TurnEvent[] = [];
  private textChars = 0;
  private call = 0;
  private attempt = 0;
  private seq = 0;
  private textThisAttempt = false;

  get ended(): boolean {
    const last = this.events.at(-1);
    return last !== undefined && ENDING_EVENTS.includes(last.type);
  }

  /** A batch of text from the activity; whatever is out of order or past the caps is dropped. */
  chunk(chunk: StreamChunk): void {
    if (this.ended || chunk.call < this.call) return;
    if (chunk.call > this.call) {
      ({
        call: this.call,
        attempt: this.attempt,
        seq: this.seq,
      } = { call: chunk.call, attempt: chunk.attempt, seq: 0 });
      this.textThisAttempt = false;
    } else if (chunk.attempt < this.attempt) {
      return;
    } else if (chunk.attempt > this.attempt) {
      if (this.textThisAttempt) this.push({ type: 'restart', attempt: chunk.attempt });
      ({ attempt: this.attempt, seq: this.seq } = { attempt: chunk.attempt, seq: 0 });
      this.textThisAttempt = false;
    }
    if (chunk.seq !== this.seq) return;
    this.seq++;
    const room = MAX_STREAM_TEXT_CHARS - this.textChars;
    const text = chunk.text.length > room ? headCodePoints(chunk.text, room) : chunk.text;
    if (text === '' || this.events.length >= MAX_STREAM_EVENTS - 1) return;
    this.textChars += text.length;
    this.textThisAttempt = true;
    this.push({ type: 'text', text });
  }

  /** A tool call of the turn starting or ending. */
  tool(phase: 'start' | 'end', name: string, args?: unknown, ok?: boolean): void {
    if (this.ended || this.events.length >= MAX_STREAM_EVENTS - 1) return;
    const shown = args === undefined ? undefined : headCodePoints(JSON.stringify(args) ?? '', TOOL_ARGS_CHARS);
    this.push({
      type: 'tool',
      phase,
      name,
      ...(shown !== undefined && { args: shown }),
      ...(ok !== undefined && { ok }),
    });
  }

  /** Ends the stream (once: later ends are ignored). */
  end(event: Extract<NewEvent, { type: 'done' | 'error' | 'cancelled' }>): void {
    if (!this.ended) this.push(event);
  }

  /** Events from `from` on, at most a page's worth of text. */
  page(from: number): StreamPage {
    const events: TurnEvent[] = [];
    let chars = 0;
    for (const event of this.events.slice(from)) {
      const size = JSON.stringify(event).length;
      if (events.length > 0 && chars + size > PAGE_CHARS) break;
      events.push(event);
      chars += size;
    }
    const next = from + events.length;
    return { events, next, ended: this.ended && next >= this.events.length };
  }

  private push(event: NewEvent): void {
    this.events.push({ ...event, offset: this.events.length } as TurnEvent);
  }
}
