import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, dataHome } from '../config';
import { startDevServer } from './dev-server';
import { isTemporalProcess, stopProcess } from './process-control';
import { logToStderr } from './provision';
import { isNamespaceReady, isPortOpen, isServerAnswering } from './server-probe';

/** Where {@link ensureDevServer} keeps the dev server's state, pid, output and address under the data directory. */
export function devServerFiles(home: string = dataHome()) {
  return {
    dbFile: path.join(home, 'temporal.db'),
    pidFile: path.join(home, 'temporal.pid'),
    logFile: path.join(home, 'temporal.log'),
    recordFile: path.join(home, 'temporal.json'),
  };
}

/** What `<home>/temporal.json` says of the detached dev server scratchpad started. */
export interface ServerRecord {
  pid: number;
  address: string;
  uiUrl: string | undefined;
  dbFile: string;
  logFile: string;
}

function readPid(pidFile: string): number | undefined {
  const pid = Number.parseInt(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : '', 10);
  return Number.isNaN(pid) || !isTemporalProcess(pid) ? undefined : pid;
}

/** The detached dev server this data directory's pid file names, while it runs. */
export function runningDevServer(home: string = dataHome()): ServerRecord | undefined {
  const files = devServerFiles(home);
  const pid = readPid(files.pidFile);
  if (pid === undefined) return undefined;
  let recorded: Partial<ServerRecord> = {};
  try {
    recorded = JSON.parse(fs.readFileSync(files.recordFile, 'utf8')) as Partial<ServerRecord>;
  } catch {
    // Started by a version that kept only the pid file.
  }
  const address = recorded.pid === pid && recorded.address ? recorded.address : 'unknown address';
  return { pid, address, uiUrl: recorded.pid === pid ? recorded.uiUrl : undefined, ...files };
}

/** The server `npm start` talks to, and whether this call started it. */
export interface EnsuredServer {
  address: string;
  uiUrl: string | undefined;
  started: boolean;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3})$/;

/**
 * Why no dev server may be started for `address` with nothing answering there, else undefined: only a loopback
 * address on an unprivileged port with nothing listening, and a Web UI port (port + 1000) that exists.
 */
export async function localStartProblem(address: string): Promise<string | undefined> {
  const colon = address.lastIndexOf(':');
  const [host, port] = [address.slice(0, colon), Number(address.slice(colon + 1))];
  const none = `no Temporal server answers at ${address}`;
  if (!LOOPBACK.test(host)) return `${none}; start it, or unset TEMPORAL_ADDRESS to use a local dev server`;
  if (port < 1024 || port + 1000 > 65535) {
    return `${none}, and port ${port} is no place for a dev server (it needs 1024-64535): set TEMPORAL_ADDRESS to one, e.g. localhost:7233`;
  }
  if (await isPortOpen(address, 1000)) {
    return `${none}, but something else listens there: stop it, or set TEMPORAL_ADDRESS to a free port`;
  }
  return undefined;
}

/**
 * Uses the server answering at `TEMPORAL_ADDRESS`; when none does and the address is a free local one (see
 * {@link localStartProblem}), starts a detached dev server there (state in `<data dir>/temporal.db`, Web UI on
 * port + 1000) that outlives this process.
 */
export async function ensureDevServer(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'home'>,
  options: { log?: (line: string) => void; startTimeoutMs?: number } = {},
): Promise<EnsuredServer> {
  const log = options.log ?? logToStderr;
  const address = config.TEMPORAL_ADDRESS;
  const files = devServerFiles(config.home);
  const running = runningDevServer(config.home);
  const ours = running?.address === address ? running : undefined;
  if (await isServerAnswering(address)) {
    log(`using the Temporal server at ${address}${ours?.uiUrl ? ` (Web UI ${ours.uiUrl})` : ''}`);
    return { address, uiUrl: ours?.uiUrl, started: false };
  }
  if (ours) {
    log(`waiting for the dev server this project started (pid ${ours.pid}) to answer`);
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    if (await waitFor(() => isNamespaceReady(address, config.TEMPORAL_NAMESPACE), timeoutMs)) {
      return { address, uiUrl: ours.uiUrl, started: false };
    }
    log(`pid ${ours.pid} did not answer; stopping it and starting a new dev server`);
    await stopProcess(ours.pid);
  }
  const problem = await localStartProblem(address);
  if (problem) throw new Error(problem);
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  fs.mkdirSync(config.home, { recursive: true });
  const server = await startDevServer({
    ...files,
    ip: address.slice(0, colon),
    port,
    uiPort: port + 1000,
    namespace: config.TEMPORAL_NAMESPACE,
    detached: true,
    log,
    startTimeoutMs: options.startTimeoutMs,
  });
  const record: ServerRecord = { pid: server.pid, address, uiUrl: server.uiUrl, ...files };
  fs.writeFileSync(files.recordFile, `${JSON.stringify(record, null, 2)}\n`);
  log(`the dev server keeps running in the background (pid ${server.pid}, output in ${files.logFile})`);
  return { address, uiUrl: server.uiUrl, started: true };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(200);
  }
  return false;
}

/** Stops the detached dev server recorded in the data directory's pid file; false when none was running. */
export async function stopDevServer(home: string = dataHome()): Promise<boolean> {
  const { pidFile, recordFile } = devServerFiles(home);
  const pid = readPid(pidFile);
  fs.rmSync(pidFile, { force: true });
  fs.rmSync(recordFile, { force: true });
  if (pid === undefined) return false;
  await stopProcess(pid);
  return true;
}
