import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';

/** One event of a workflow's history, as the server sends it (payloads still encoded). */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Where a stream of a workflow's history starts and how long it waits for the workflow. */
export interface HistoryStreamOptions {
  /** The run to read; the latest one when left out. */
  runId?: string;
  /** Events of that first run up to and including this id are skipped (those seen before). */
  afterEventId?: number;
  signal?: AbortSignal;
  /** How long the workflow may take to appear, since whoever starts it may not have yet (default 10 s). */
  appearWithinMs?: number;
  /** Goes on to the next run after a continue-as-new, as an agent's history does. */
  followRuns?: boolean;
}

const GRPC_NOT_FOUND = 5;
const APPEAR_POLL_MS = 100;

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === GRPC_NOT_FOUND || (error as Error)?.name === 'WorkflowNotFoundError';
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs one request under `signal` through a signal of its own: the client adds a listener to the signal it is given
 * for every call, and a long-lived one would collect a listener per page.
 */
async function withSignal<T>(client: Client, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort();
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await client.withAbortSignal(own.signal, request);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/**
 * A workflow's history event by event as it grows: each page is a long poll (`waitNewEvent`), so an event arrives
 * as soon as the server records it. Ends when the run closes (or, with `followRuns`, the last run), or when `signal`
 * aborts. A workflow not found yet is asked for again until `appearWithinMs` has passed, then rejects.
 */
export async function* historyEvents(
  client: Client,
  workflowId: string,
  options: HistoryStreamOptions = {},
): AsyncGenerator<HistoryEvent> {
  const { signal } = options;
  const appearBy = Date.now() + (options.appearWithinMs ?? 10_000);
  let runId = options.runId;
  let skipUpTo = options.afterEventId ?? 0;
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    if (signal?.aborted) return;
    let response: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    const request = () =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        nextPageToken,
        waitNewEvent: true,
        skipArchival: true,
      });
    try {
      response = signal ? await withSignal(client, signal, request) : await request();
    } catch (error) {
      if (signal?.aborted) return;
      if (isNotFound(error) && nextPageToken === undefined && Date.now() < appearBy) {
        await pause(APPEAR_POLL_MS, signal);
        continue;
      }
      throw error;
    }
    let nextRun: string | undefined;
    for (const event of response.history?.events ?? []) {
      if (Number(event.eventId ?? 0) <= skipUpTo) continue;
      yield event;
      const continued = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (continued) nextRun = continued;
    }
    const token = response.nextPageToken;
    if (token && token.length > 0) {
      nextPageToken = token;
      continue;
    }
    if (!options.followRuns || !nextRun) return;
    runId = nextRun;
    skipUpTo = 0;
    nextPageToken = undefined;
  }
}

/** The first payload of `payloads` decoded with the client's data converter (its codec decrypts, when configured). */
export async function decodeFirst<T>(
  client: Client,
  payloads: temporal.api.common.v1.IPayloads | null | undefined,
): Promise<T | undefined> {
  const list = payloads?.payloads;
  if (!list || list.length === 0) return undefined;
  try {
    return await decodeFromPayloadsAtIndex<T>(client.options.loadedDataConverter, 0, list);
  } catch {
    // A payload this client cannot decode (another key, another converter): progress goes on without it.
    return undefined;
  }
}

/** An event's time in milliseconds since the epoch; 0 when the event has none. */
export function eventMillis(event: HistoryEvent): number {
  const time = event.eventTime;
  if (!time) return 0;
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}
