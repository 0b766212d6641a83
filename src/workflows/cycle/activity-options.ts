import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';
import { ModelError } from '../../common/failure-types';

/** Model errors retrying cannot fix; the provider adapters mark them non-retryable too. */
const NON_RETRYABLE_MODEL_ERRORS = [
  ModelError.BadRequest,
  ModelError.Auth,
  ModelError.NotFound,
  ModelError.ScriptExhausted,
  ModelError.NotConfigured,
  ModelError.BadResponse,
];

function retry(maxAttempts: number): RetryPolicy {
  return { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: maxAttempts };
}

/**
 * Activities that can wait long heartbeat every few seconds (activities/heartbeat.ts): a worker killed mid-call is
 * noticed after this long and the attempt retried on another worker, while the start-to-close timeouts below stay
 * long enough for a slow model.
 */
export const HEARTBEAT_TIMEOUT = '15s';

/** Options of the `callModel` activity: Temporal owns retries, with `maxAttempts` before the cycle fails. */
export function modelActivityOptions(maxAttempts: number): ActivityOptions {
  return {
    startToCloseTimeout: '10m',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { ...retry(maxAttempts), nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS },
  };
}

/** Options of the `runTool` activity. */
export function toolActivityOptions(maxAttempts: number): ActivityOptions {
  return { startToCloseTimeout: '5m', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: retry(maxAttempts) };
}
