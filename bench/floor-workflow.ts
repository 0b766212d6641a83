import { proxyActivities } from '@temporalio/workflow';
import { modelActivityOptions, toolActivityOptions } from '../src/workflows/cycle/activity-options';
import type { FloorActivities } from './floor-activities';

/** Input of {@link floorCycle}. */
export interface FloorInput {
  iterations: number;
  maxAttempts: number;
}

// The same options agentCycle uses, so each scheduled activity carries the same options (and the same bytes of them).
function activitiesFor(maxAttempts: number): FloorActivities {
  const { modelStandIn } = proxyActivities<FloorActivities>(modelActivityOptions(maxAttempts));
  const { toolStandIn } = proxyActivities<FloorActivities>(toolActivityOptions(maxAttempts));
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
