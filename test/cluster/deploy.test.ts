import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { type DeployPlace, bundleBuilds, deployWhileACycleWaits } from '../helpers/deploy-scenario';
import { clusterClient, clusterConfig, clusterState } from './cluster-env';

// The dev server suite's deploy scenario (test/workflows/deploy-versions.test.ts) on the production shape: the
// Temporal server on PostgreSQL with SQL visibility, over TLS.

let client: Client;
let place: DeployPlace;
const connections: NativeConnection[] = [];

beforeAll(async () => {
  client = await clusterClient();
  place = {
    client,
    connect: async () => {
      const connection = await NativeConnection.connect(clusterConfig().temporal);
      connections.push(connection);
      return connection;
    },
    config: (variables) => clusterConfig(variables),
    cliEnv: clusterState().clientEnv,
    ...(await bundleBuilds()),
  };
});

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await client?.connection.close();
});

describe('a deploy while a cycle waits for a person, on the cluster', () => {
  it('finishes the cycle on the build that started it and starts the next cycle on the new build', async () => {
    await deployWhileACycleWaits(place);
  });
});
