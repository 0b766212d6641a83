import { Context } from '@temporalio/activity';

/** The most time between two heartbeats of a waiting activity. */
export const HEARTBEAT_INTERVAL_MS = 1000;

/**
 * How often an activity with this heartbeat timeout heartbeats: every second, or four times per timeout when that is
 * shorter. Workers send heartbeats at that pace (WORKER_LIVENESS_OPTIONS), so a timeout is missed only when the
 * worker is gone or its event loop has been blocked for most of the timeout.
 */
export function heartbeatIntervalMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(100, Math.min(HEARTBEAT_INTERVAL_MS, (heartbeatTimeoutMs ?? Infinity) / 4));
}

/**
 * Worker options that let heartbeats reach the server at the activities' own pace. The SDK otherwise holds them back
 * to 80% of the heartbeat timeout, which both delays a cancellation by that much and lets one late heartbeat lose an
 * attempt; and a workflow task of a dead worker waits this long on its sticky queue before any worker may take it.
 */
export const WORKER_LIVENESS_OPTIONS = {
  maxHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
  defaultHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
  stickyQueueScheduleToStartTimeout: '3s',
} as const;

/** The running activity's context, or undefined outside one (unit tests). */
function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` while heartbeating, handing it the activity's cancellation signal. A worker that dies stops
 * heartbeating, so the server retries the activity elsewhere after the heartbeat timeout instead of the
 * start-to-close timeout; and cancellation is only delivered to activities that heartbeat. Outside an activity (unit
 * tests) `work` runs without a signal.
 */
export async function heartbeating<T>(work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  const context = currentContext();
  if (!context) return work(undefined);
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), heartbeatIntervalMs(context.info.heartbeatTimeoutMs));
  try {
    return await work(context.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}
