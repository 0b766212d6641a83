import * as fs from 'node:fs';
import type { Client } from '@temporalio/client';
import { connectClient } from '../../src/clients/connection';
import { type Config, loadConfig } from '../../src/config';
import type { ClusterState } from '../../src/dev-server/cluster/layout';

/** The state `scripts/cluster start` wrote for this run (test/cluster/global-setup.ts). */
export function clusterState(): ClusterState {
  const file = process.env.SCRATCHPAD_CLUSTER_STATE;
  if (!file) throw new Error('SCRATCHPAD_CLUSTER_STATE is not set: run with npm run test:cluster');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterState;
}

/** Configuration as a user's shell with the cluster's client environment would load it (TLS through envconfig). */
export function clusterConfig(extra: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({ ...process.env, ...clusterState().clientEnv, ...extra });
}

export function clusterClient(extra: NodeJS.ProcessEnv = {}): Promise<Client> {
  return connectClient(clusterConfig(extra));
}

/** The worker processes, with the identity the SDK reports for each (`<pid>@<host>`). */
export function clusterWorkers(): { name: string; pid: number }[] {
  return clusterState().processes.filter((process) => process.name.startsWith('worker-'));
}
