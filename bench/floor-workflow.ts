import { type RetryPolicy, proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities';

/** Input of {@link floorCycle}. */
export interface FloorInput {
  iterations: number;
  maxAttempts: number;
}

// Copied from agentCycle so each scheduled activity carries the same options (and the same bytes of them).
const NON_RETRYABLE_MODEL_ERRORS = [
  'ModelError.BadRequest',
  'ModelError.Auth',
  'ModelError.NotFound',
  'ModelError.ScriptExhausted',
  'ModelError.NotConfigured',
  'ModelError.BadResponse',
];

function activitiesFor(maxAttempts: number): FloorActivities {
  const retry: RetryPolicy = {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: maxAttempts,
  };
  const { modelStandIn } = proxyActivities<FloorActivities>({
    startToCloseTimeout: '3m',
    retry: { ...retry, nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS },
  });
  const { toolStandIn } = proxyActivities<FloorActivities>({ startToCloseTimeout: '2m', retry });
  return { modelStandIn, toolStandIn };
}

/** The least a Temporal cycle can cost: per iteration a no-op "model" activity and a no-op "tool" activity. */
export async function floorCycle(input: FloorInput): Promise<number> {
  const { modelStandIn, toolStandIn } = activitiesFor(input.maxAttempts);
  for (let iteration = 1; iteration <= input.iterations; iteration++) {
    await modelStandIn();
    // agentCycle's last iteration answers `done`, which runs no tool; the floor does the same number of activities.
    if (iteration < input.iterations) await toolStandIn();
  }
  return input.iterations;
}
