import { Context } from '@temporalio/activity';

/** How often a waiting activity heartbeats; the SDK throttles what it sends to the server to 80% of the timeout. */
export const HEARTBEAT_INTERVAL_MS = 3000;

/**
 * Runs `work` while heartbeating every few seconds, handing it the activity's cancellation signal. A worker that
 * dies stops heartbeating, so the server retries the activity elsewhere after the heartbeat timeout instead of
 * the start-to-close timeout; and cancellation is only delivered to activities that heartbeat. Outside an
 * activity (unit tests) `work` runs without a signal.
 */
export async function heartbeating<T>(
  work: (signal: AbortSignal | undefined) => Promise<T>,
  intervalMs = HEARTBEAT_INTERVAL_MS,
): Promise<T> {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return work(undefined);
  }
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), intervalMs);
  try {
    return await work(context.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}
