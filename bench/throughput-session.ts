import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../src/workers/create-worker';
import { benchToolSetup } from './cycle-script';
import type { TemporalTarget } from './temporal-target';
import { type BenchWorkers, startBenchWorkers } from './throughput-workers';

/** What a throughput measurement works with: the server, a client and the in-process workers of each shape. */
export interface BenchSession {
  target: TemporalTarget;
  client: Client;
  workers: BenchWorkers;
}

const quiet = new DefaultLogger('ERROR');
const FLOOR = require.resolve('./floor-entity');

/** Opens the server, bundles both shapes' workflows, starts the workers asked for, and tears it all down after. */
export async function withBenchSession<T>(
  open: () => Promise<TemporalTarget>,
  shapes: readonly ('agent' | 'floor')[],
  work: (session: BenchSession) => Promise<T>,
): Promise<T> {
  const target = await open();
  const setup = benchToolSetup();
  const connection = await NativeConnection.connect({ address: target.address });
  const clientConnection = await Connection.connect({ address: target.address });
  const client = new Client({ connection: clientConnection, namespace: target.namespace });
  const bundles = {
    agent: await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quiet }),
    // The project's worker shares its workflow modules among executions; the floor's worker does the same.
    floor: await bundleWorkflowCode({ workflowsPath: FLOOR, preloadModules: [FLOOR], logger: quiet }),
  };
  const workers = await startBenchWorkers(connection, client, target.namespace, bundles, setup, shapes);
  try {
    return await work({ target, client, workers });
  } finally {
    await workers.shutdown();
    await clientConnection.close();
    await connection.close();
    await setup.close();
    await target.stop();
  }
}
