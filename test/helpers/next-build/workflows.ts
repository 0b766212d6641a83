/*
 * The workflow code of a later build, for the deploy test: its cycle starts with a timer that histories of the
 * earlier build's cycles do not have, so replaying one of those here fails with a non-determinism error. Everything
 * else is the package's own code.
 */
import { setWorkflowOptions, sleep } from '@temporalio/workflow';
import { agentCycle as earlierCycle } from '../../../src/workflows';

export * from '../../../src/workflows';

export const agentCycle: typeof earlierCycle = async (input) => {
  await sleep(1);
  return earlierCycle(input);
};
setWorkflowOptions({ versioningBehavior: 'PINNED' }, agentCycle);
