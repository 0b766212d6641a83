import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';
import type { ToolPolicy } from '../../core/tools/descriptor';
import { DEFAULT_HEARTBEAT_TIMEOUT_MS } from '../../core/cycle/liveness';
import { ModelError } from '../../common/failure-types';

/** Model errors retrying cannot fix; the provider adapters mark them non-retryable too. */
const NON_RETRYABLE_MODEL_ERRORS = [
  ModelError.BadRequest,
  ModelError.Auth,
  ModelError.NotFound,
  ModelError.ScriptExhausted,
  ModelError.NotConfigured,
  ModelError.BadResponse,
  ModelError.ContextExceeded,
];

// A worker's death is a retry too: the first one comes half a second after the heartbeat timeout notices it.
function retry(maxAttempts: number): RetryPolicy {
  return { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: maxAttempts };
}

/**
 * Activities that can wait long heartbeat every second (activities/heartbeat.ts): a worker killed mid-call is
 * noticed after the heartbeat timeout (core/cycle/liveness.ts, settable per kind) and the attempt retried on another
 * worker, while the start-to-close timeouts below stay long enough for a slow model.
 */
export const HEARTBEAT_TIMEOUT = DEFAULT_HEARTBEAT_TIMEOUT_MS;

/** Options of the `callModel` activity: Temporal owns retries, with `maxAttempts` before the cycle fails. */
export function modelActivityOptions(maxAttempts: number, heartbeatTimeoutMs = HEARTBEAT_TIMEOUT): ActivityOptions {
  return {
    startToCloseTimeout: '10m',
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: { ...retry(maxAttempts), nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS },
  };
}

/** A tool's own timeout leaves the activity this long to store its observation and report. */
const TOOL_TIMEOUT_MARGIN_MS = 60_000;
const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60_000;

/**
 * Options of the `runTool` activity, under a tool's policy: a longer timeout when the tool asks for one (its own
 * timeout, enforced in the activity, is what the model sees), and one attempt for a tool that must not run twice.
 */
export function toolActivityOptions(
  maxAttempts: number,
  policy: Pick<ToolPolicy, 'retry' | 'timeoutMs'> = { retry: true },
  heartbeatTimeoutMs = HEARTBEAT_TIMEOUT,
): ActivityOptions {
  const timeoutMs = Math.max(DEFAULT_TOOL_TIMEOUT_MS, (policy.timeoutMs ?? 0) + TOOL_TIMEOUT_MARGIN_MS);
  return {
    startToCloseTimeout: timeoutMs,
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: policy.retry ? retry(maxAttempts) : { maximumAttempts: 1 },
  };
}

/** Options of `listTools`, a local activity: MCP servers may take a while to start on first use. */
export function listToolsOptions(): LocalActivityOptions {
  return { startToCloseTimeout: '2m', retry: { initialInterval: '1s', maximumAttempts: 3 } };
}
