import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCluster, stopCluster } from '../src/dev-server/cluster/cluster';
import { TEMPORAL_SERVER_VERSION } from '../src/dev-server/cluster/layout';
import { progress } from './measure';
import { type TemporalTarget, openTemporalTarget } from './temporal-target';

/** The dev server (SQLite) on free ports. */
export function devServerTarget(): Promise<TemporalTarget> {
  return openTemporalTarget({ iterations: 0, runs: 0, namespace: 'default' });
}

/**
 * A throwaway cluster from `scripts/cluster`'s code (PostgreSQL, the Temporal server, Redis, the Web UI server),
 * with no workers of its own: the benchmark's in-process workers serve both shapes on both servers.
 */
export async function clusterTarget(): Promise<TemporalTarget> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-cluster-'));
  const env = { ...process.env, SCRATCHPAD_CLUSTER_DIR: directory };
  const log = (line: string) => progress(`cluster: ${line}`);
  const state = await startCluster({ workers: 0, env, log });
  return {
    address: state.address,
    namespace: state.namespace,
    description: `cluster ${state.address} (Temporal ${TEMPORAL_SERVER_VERSION} on PostgreSQL, SQL visibility)`,
    started: true,
    async stop() {
      await stopCluster({ env, log });
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
