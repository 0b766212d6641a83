import { NativeConnection } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../src/config';
import { testEnvironment, testServerAddress } from '../helpers/temporal';
import { type DeployPlace, bundleBuilds, deployWhileACycleWaits } from '../helpers/deploy-scenario';

jest.setTimeout(180_000);

let env: TestWorkflowEnvironment;
let place: DeployPlace;
const connections: NativeConnection[] = [];

beforeAll(async () => {
  env = await testEnvironment();
  place = {
    client: env.client,
    connect: async () => {
      const connection = await NativeConnection.connect({ address: testServerAddress() });
      connections.push(connection);
      return connection;
    },
    config: (variables) => loadConfig({ TEMPORAL_ADDRESS: testServerAddress(), ...variables }),
    ...(await bundleBuilds()),
  };
});
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await env?.teardown();
});

describe('a deploy while a cycle waits for a person, on the dev server', () => {
  it('finishes the cycle on the build that started it and starts the next cycle on the new build', async () => {
    await deployWhileACycleWaits(place);
  });
});
