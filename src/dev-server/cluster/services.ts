import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { packageRoot } from '../../config/paths';
import { isPortOpen } from '../server-probe';
import type { ClusterLayout, ClusterPorts, ClusterProcess } from './layout';
import { logTail, spawnLogged, waitReady } from './processes';
import type { Log } from './provision';
import { CONFIG_ENV } from './server-config';
import type { TlsFiles } from './tls';

const GRPC_ALREADY_EXISTS = 6;

function connectOptions(address: string, tls?: TlsFiles): ConnectionOptions {
  return {
    address,
    connectTimeout: '2s',
    tls: tls ? { serverRootCACertificate: fs.readFileSync(tls.ca), serverNameOverride: 'localhost' } : undefined,
  };
}

/** Registers `namespace` (one day of retention) once the frontend answers; true when it is usable. */
async function ensureNamespace(address: string, namespace: string, tls?: TlsFiles): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect(connectOptions(address, tls));
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('1 day'),
      });
    } catch (error) {
      if ((error as { code?: number }).code !== GRPC_ALREADY_EXISTS) throw error;
    }
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/** The Temporal server (all four services in one process), started and with `namespace` registered. */
export async function startTemporalServer(
  layout: ClusterLayout,
  ports: ClusterPorts,
  namespace: string,
  log: Log,
  tls?: TlsFiles,
): Promise<ClusterProcess> {
  const address = `localhost:${ports.frontend}`;
  log(`starting the Temporal server, frontend ${address}${tls ? ' (TLS)' : ''}`);
  const args = ['--root', layout.configDir, '--config', 'temporal', '--env', CONFIG_ENV, '--allow-no-auth', 'start'];
  const server = spawnLogged('temporal-server', layout.serverBin, args, { logDir: layout.logDir });
  await waitReady(server, () => ensureNamespace(address, namespace, tls), 120_000);
  log(`namespace ${namespace} ready`);
  return server;
}

/** The Web UI server, answering HTTP. */
export async function startUiServer(layout: ClusterLayout, ports: ClusterPorts, log: Log): Promise<ClusterProcess> {
  log(`starting the Web UI server on http://127.0.0.1:${ports.ui}`);
  const args = ['--root', layout.configDir, '--config', 'ui', '--env', CONFIG_ENV, 'start'];
  const ui = spawnLogged('ui-server', layout.uiBin, args, { logDir: layout.logDir });
  await waitReady(ui, () => isPortOpen(`127.0.0.1:${ports.ui}`, 500), 60_000);
  return ui;
}

/** `redis-server` with append-only persistence in the cache. */
export async function startRedis(layout: ClusterLayout, port: number, log: Log): Promise<ClusterProcess> {
  log(`starting redis-server on 127.0.0.1:${port} (appendonly yes, dir ${layout.redisDir})`);
  fs.mkdirSync(layout.redisDir, { recursive: true });
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', layout.redisDir, '--appendonly', 'yes'];
  const redis = spawnLogged('redis', 'redis-server', [...args, '--save', ''], {
    logDir: layout.logDir,
    program: 'redis-server',
  });
  await waitReady(redis, () => isPortOpen(`127.0.0.1:${port}`, 500), 30_000);
  return redis;
}

function scratchpadBin(): string {
  return path.join(packageRoot(), 'bin', 'scratchpad.js');
}

/** `scratchpad setup`: the project's search attributes, by the same command users run on any cluster. */
export async function runSetup(env: NodeJS.ProcessEnv, log: Log): Promise<void> {
  log('scratchpad setup (search attributes)');
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [scratchpadBin(), 'setup'], {
      env,
      timeout: 60_000,
    });
    log(stdout.trim());
  } catch (error) {
    throw new Error(`scratchpad setup failed: ${(error as { stderr?: string }).stderr || (error as Error).message}`);
  }
}

/** One `scratchpad worker` process, polling once its log says so. */
export async function startWorker(
  layout: ClusterLayout,
  index: number,
  env: NodeJS.ProcessEnv,
  model: string | undefined,
): Promise<ClusterProcess> {
  const home = path.join(layout.root, 'workers', `worker-${index}`);
  fs.mkdirSync(home, { recursive: true });
  const args = [scratchpadBin(), 'worker', ...(model ? ['--model', model] : [])];
  const worker = spawnLogged(`worker-${index}`, process.execPath, args, {
    logDir: layout.logDir,
    env: { ...env, SCRATCHPAD_HOME: home },
    program: 'scratchpad.js',
  });
  const polling = () => Promise.resolve(/Worker polling/.test(logTail(worker.log, 5)));
  await waitReady(worker, polling, 60_000);
  return worker;
}
