import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../../config/paths';
import { isPortFree } from '../free-port';
import {
  type ClusterLayout,
  type ClusterPorts,
  type ClusterProcess,
  type ClusterState,
  clusterLayout,
  readState,
  writeState,
} from './layout';
import { initPostgres, setupSchemas, startPostgres } from './postgres';
import { isRunning, stopAll } from './processes';
import { ensurePostgres, ensureSchemaDir, ensureServerBinaries, ensureTools, type Log } from './provision';
import { runSetup, startRedis, startTemporalServer, startUiServer, startWorker } from './services';
import { writeConfigs } from './server-config';
import { ensureTlsFiles } from './tls';

export interface StartOptions {
  workers?: number;
  /** Frontend gRPC and Web UI ports; free ones when absent. */
  frontendPort?: number;
  uiPort?: number;
  /** Serve the frontend with a self-signed certificate; clients trust its CA. */
  tls?: boolean;
  namespace?: string;
  /** Default model of the workers (`--model`); their environment's SCRATCHPAD_MODEL otherwise. */
  model?: string;
  log?: Log;
  env?: NodeJS.ProcessEnv;
}

export function logToStderr(line: string): void {
  process.stderr.write(`[cluster] ${line}\n`);
}

/**
 * A free port under 32768: the server stores membership ports in a SMALLINT column, and staying below the
 * kernel's ephemeral range keeps outgoing connections from taking them before the servers bind.
 */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.has(port) && (await isPortFree(port))) {
      taken.add(port);
      return port;
    }
  }
}

async function allocatePorts(options: StartOptions): Promise<ClusterPorts> {
  const taken = new Set<number>();
  const free = () => freeLowPort(taken);
  return {
    frontend: options.frontendPort ?? (await free()),
    frontendHttp: await free(),
    history: await free(),
    matching: await free(),
    worker: await free(),
    membership: { frontend: await free(), history: await free(), matching: await free(), worker: await free() },
    ui: options.uiPort ?? (await free()),
    postgres: await free(),
    redis: await free(),
  };
}

/** Cycles name their model; a worker still needs a default, which is the offline demo's script when none is set. */
function workerModel(model: string | undefined, env: NodeJS.ProcessEnv, log: Log): string | undefined {
  if (model || env.SCRATCHPAD_MODEL || env.ANTHROPIC_API_KEY) return model;
  const demo = `scripted:${path.join(packageRoot(), 'examples', 'demo.jsonl')}`;
  log(`no SCRATCHPAD_MODEL or ANTHROPIC_API_KEY: workers default to ${demo} (--model to choose)`);
  return demo;
}

/** The running processes of the last `start`, or undefined when none runs. */
export function runningCluster(layout: ClusterLayout = clusterLayout()): ClusterState | undefined {
  const state = readState(layout);
  return state && state.processes.some(isRunning) ? state : undefined;
}

/**
 * Starts PostgreSQL, the Temporal server, redis-server, the Web UI server, runs `scratchpad setup`, then N workers,
 * provisioning what is missing first. Each process is recorded as soon as it runs, so `stop` cleans up after a
 * failed start too.
 */
export async function startCluster(options: StartOptions = {}): Promise<ClusterState> {
  const log = options.log ?? logToStderr;
  const env = options.env ?? process.env;
  const layout = clusterLayout(env);
  const running = runningCluster(layout);
  if (running) {
    log(`already running (frontend ${running.address}); \`scripts/cluster stop\` first to restart`);
    return running;
  }
  fs.mkdirSync(layout.root, { recursive: true });
  await ensureServerBinaries(layout, log, env);
  const schemaDir = await ensureSchemaDir(log, env);
  const postgresBin = await ensurePostgres(log, env);
  await ensureTools(log, options.tls ?? false);

  const ports = await allocatePorts(options);
  const tls = options.tls ? await ensureTlsFiles(layout.tlsDir, log) : undefined;
  const namespace = options.namespace ?? 'default';
  const address = `localhost:${ports.frontend}`;
  const state: ClusterState = {
    ports,
    address,
    namespace,
    uiUrl: `http://127.0.0.1:${ports.ui}`,
    redisUrl: `redis://127.0.0.1:${ports.redis}`,
    caCert: tls?.ca,
    clientEnv: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      ...(tls ? { TEMPORAL_TLS: 'true', TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.ca } : {}),
    },
    processes: [],
  };
  const record = (started: ClusterProcess) => {
    state.processes.push(started);
    writeState(layout, state);
  };
  try {
    await initPostgres(layout, postgresBin, log);
    record(await startPostgres(layout, postgresBin, ports.postgres, log));
    await setupSchemas(layout, schemaDir, ports.postgres, log);
    writeConfigs(layout, ports, tls);
    record(await startTemporalServer(layout, ports, namespace, log, tls));
    record(await startRedis(layout, ports.redis, log));
    record(await startUiServer(layout, ports, log));
    const workerEnv = {
      ...env,
      ...state.clientEnv,
      TEMPORAL_UI_URL: state.uiUrl,
      SCRATCHPAD_OBSERVATIONS: state.redisUrl,
    };
    await runSetup(workerEnv, log);
    const model = workerModel(options.model, workerEnv, log);
    const count = options.workers ?? 2;
    for (let index = 1; index <= count; index++) {
      log(`starting scratchpad worker ${index} of ${count} (SCRATCHPAD_OBSERVATIONS=${state.redisUrl})`);
      record(await startWorker(layout, index, workerEnv, model));
    }
  } catch (error) {
    log(`start failed; stopping what was started`);
    await stopAll(state.processes, log);
    throw error;
  }
  log(`running: frontend ${address}, Web UI ${state.uiUrl}, Redis ${state.redisUrl}; logs in ${layout.logDir}`);
  return state;
}

/** Stops every process the last `start` recorded; false when none was running. */
export async function stopCluster(options: { log?: Log; env?: NodeJS.ProcessEnv } = {}): Promise<boolean> {
  const log = options.log ?? logToStderr;
  const layout = clusterLayout(options.env ?? process.env);
  const state = readState(layout);
  if (!state || !state.processes.some(isRunning)) return false;
  await stopAll(state.processes, log);
  log('stopped');
  return true;
}

/** One line per recorded process: name, pid, running or not, log file. */
export function clusterStatus(env: NodeJS.ProcessEnv = process.env): { state?: ClusterState; lines: string[] } {
  const layout = clusterLayout(env);
  const state = readState(layout);
  if (!state) return { lines: [`no cluster started (state would be in ${layout.stateFile})`] };
  const lines = state.processes.map(
    (process) =>
      `${process.name.padEnd(16)} pid ${String(process.pid).padEnd(8)} ${isRunning(process) ? 'running' : 'stopped'}  ${process.log}`,
  );
  lines.push(`frontend ${state.address}  Web UI ${state.uiUrl}  Redis ${state.redisUrl}`);
  lines.push(
    `client environment: ${Object.entries(state.clientEnv)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')}`,
  );
  return { state, lines };
}
