import { Context } from '@temporalio/activity';
import { streamChunkSignal } from '../../common/messages/cycle';
import type { StreamChunk } from '../../core/cycle/turn-stream';
import type { TextListener } from './provider';

/**
 * How long text gathers before it is sent, after the first piece (which goes at once: the time to the first token is
 * what a person waits on). Each batch is one signal, an event and a workflow task in the cycle's history, so the wait
 * grows by a quarter each batch, to at most {@link MAX_BATCH_MS}: a short reply comes in small steps, and a long one
 * adds about two batches' worth of events a second.
 */
export const STREAM_BATCH_MS = 150;
const MAX_BATCH_MS = 600;
/** Characters one signal carries at most; a longer batch goes as several. */
const BATCH_CHARS = 8_000;

/** `text` in slices of at most `points` code points, so no slice splits a character. */
function slices(text: string, points: number): string[] {
  const characters = Array.from(text);
  const out: string[] = [];
  for (let index = 0; index < characters.length; index += points)
    out.push(characters.slice(index, index + points).join(''));
  return out;
}

/**
 * Sends a model call's text to the turn stream of the cycle it serves, in order, as `streamChunk` signals. A signal
 * that fails (the cycle ended, the server is briefly away) stops the publishing, never the model call: the reply
 * still comes back whole, and the stream's `done` carries it.
 */
export class StreamPublisher {
  private pending = '';
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(
    private readonly send: (chunk: StreamChunk) => Promise<void>,
    private readonly call: number,
    private readonly attempt: number,
    private readonly batchMs = STREAM_BATCH_MS,
    /** Hears why publishing stopped. */
    private readonly onStop: (error: unknown) => void = () => undefined,
  ) {}

  readonly text: TextListener = (text) => {
    if (this.failed || text === '') return;
    this.pending += text;
    if (this.seq === 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), Math.min(MAX_BATCH_MS, this.batchMs * 1.25 ** this.seq));
  };

  /** Sends what is gathered and waits until every batch has been sent (or publishing stopped). */
  async close(): Promise<void> {
    this.flush();
    await this.sending;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === '' || this.failed) return;
    const batches = slices(this.pending, BATCH_CHARS);
    this.pending = '';
    for (const text of batches) {
      const chunk = { call: this.call, attempt: this.attempt, seq: this.seq++, text };
      this.sending = this.sending.then(() =>
        this.failed ? undefined : this.send(chunk).catch((error) => this.stop(error)),
      );
    }
  }

  private stop(error: unknown): void {
    this.failed = true;
    this.onStop(error);
  }
}

/**
 * The publisher of the running `callModel` activity's text, as model call `call` of its workflow's turn; undefined
 * outside an activity or where the worker has no client.
 */
export function streamPublisherFor(call: number | undefined): StreamPublisher | undefined {
  if (call === undefined) return undefined;
  try {
    const context = Context.current();
    const { workflowExecution, attempt } = context.info;
    if (!workflowExecution) return undefined;
    const handle = context.client.workflow.getHandle(workflowExecution.workflowId, workflowExecution.runId);
    const warn = (error: unknown) =>
      context.log.warn('stopped streaming a reply: its text reaches the turn with the whole reply', {
        error: `${error}`,
      });
    return new StreamPublisher((chunk) => handle.signal(streamChunkSignal, chunk), call, attempt, undefined, warn);
  } catch {
    // Outside an activity, or a test environment without a client: the reply comes back whole only.
    return undefined;
  }
}
