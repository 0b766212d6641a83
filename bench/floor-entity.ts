import { condition, defineUpdate, executeChild, setHandler, workflowInfo } from '@temporalio/workflow';
import { floorCycle } from './floor-workflow';

export { floorCycle };

/** Runs one child floor cycle of `iterations` and returns when it has finished, as `runCycle` does for an agent. */
export const runFloorUpdate = defineUpdate<number, [number]>('runFloor');

/**
 * The floor of the agent's shape: a long-lived entity workflow, started by update-with-start, that runs each
 * cycle as a child workflow of the same activities as agentCycle and waits for it.
 */
export async function floorEntity(): Promise<void> {
  let cycles = 0;
  setHandler(runFloorUpdate, (iterations) => {
    cycles++;
    return executeChild(floorCycle, {
      args: [{ iterations, maxAttempts: 3 }],
      workflowId: `${workflowInfo().workflowId}/cycle/${cycles}`,
    });
  });
  await condition(() => false);
}
