import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliCacheDir } from '../provision';

/** The versions docker-compose.yml runs; `scripts/cluster` builds the same ones. */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
export const UI_SERVER_VERSION = 'v2.42.1';
export const TEMPORAL_SERVER_MODULE = 'go.temporal.io/server';
export const SERVER_MODULES = [
  `${TEMPORAL_SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
  `${TEMPORAL_SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
];
export const UI_SERVER_MODULE = `github.com/temporalio/ui-server/v2/cmd/server@${UI_SERVER_VERSION}`;

/** Database user and password of the cluster's PostgreSQL (the compose file's too); it listens on loopback only. */
export const DB_USER = 'temporal';
export const DB_PASSWORD = 'temporal';
export const DATABASES = { store: 'temporal', visibility: 'temporal_visibility' } as const;

/** Where everything of the cluster lives: binaries, data, configuration, logs, pids. */
export interface ClusterLayout {
  root: string;
  serverBin: string;
  sqlToolBin: string;
  uiBin: string;
  pgData: string;
  redisDir: string;
  configDir: string;
  tlsDir: string;
  logDir: string;
  stateFile: string;
}

/**
 * Binaries in `$XDG_CACHE_HOME/durable-scratchpad/cluster`, next to the dev server's CLI; data, configuration,
 * logs and pids there too, or in `SCRATCHPAD_CLUSTER_DIR` (the test suite's throwaway cluster).
 */
export function clusterLayout(env: NodeJS.ProcessEnv = process.env): ClusterLayout {
  const cache = path.join(path.dirname(cliCacheDir(env)), 'cluster');
  const root = env.SCRATCHPAD_CLUSTER_DIR ? path.resolve(env.SCRATCHPAD_CLUSTER_DIR) : cache;
  return {
    root,
    serverBin: path.join(cache, 'temporal-server', 'server'),
    sqlToolBin: path.join(cache, 'temporal-server', 'sql'),
    uiBin: path.join(cache, 'ui-server', 'server'),
    pgData: path.join(root, 'postgres', 'data'),
    redisDir: path.join(root, 'redis'),
    configDir: path.join(root, 'config'),
    tlsDir: path.join(root, 'tls'),
    logDir: path.join(root, 'logs'),
    stateFile: path.join(root, 'cluster.json'),
  };
}

/** The ports the cluster listens on (all on 127.0.0.1). */
export interface ClusterPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  membership: { frontend: number; history: number; matching: number; worker: number };
  ui: number;
  postgres: number;
  redis: number;
}

/** One started process. */
export interface ClusterProcess {
  name: string;
  pid: number;
  log: string;
  /** What its command line contains, so a reused pid is never taken for it. */
  program: string;
  /** Signal that shuts it down cleanly (PostgreSQL: SIGINT, its fast shutdown). */
  stopSignal?: NodeJS.Signals;
}

/** What `start` wrote and `status` / `stop` / the tests read. */
export interface ClusterState {
  ports: ClusterPorts;
  address: string;
  namespace: string;
  uiUrl: string;
  redisUrl: string;
  /** CA certificate of the frontend's self-signed certificate when started with `--tls`. */
  caCert?: string;
  /** Environment a client or worker needs to reach this cluster (envconfig variables). */
  clientEnv: Record<string, string>;
  processes: ClusterProcess[];
}

export function readState(layout: ClusterLayout): ClusterState | undefined {
  try {
    return JSON.parse(fs.readFileSync(layout.stateFile, 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function writeState(layout: ClusterLayout, state: ClusterState): void {
  fs.writeFileSync(layout.stateFile, `${JSON.stringify(state, null, 2)}\n`);
}
