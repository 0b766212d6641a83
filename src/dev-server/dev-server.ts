import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port';
import { TIMER_SETTINGS, payloadLimitArgs } from './payload-limits';
import { lastLines } from './log-tail';
import { stopProcess } from './process-control';
import { ensureTemporalCli, logToStderr } from './provision';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { isNamespaceReady, isServerAnswering } from './server-probe';
import { errorMessage } from '../common/error-message';

export { isServerAnswering };
// Kept here too: callers import the dev server's whole life from one module.
export { devServerFiles, ensureDevServer, type EnsuredServer, stopDevServer } from './local-server';

/** Options of {@link startDevServer}; ports default to free ones, `dbFile` to in-memory state. */
export interface DevServerOptions {
  port?: number;
  uiPort?: number;
  /** Address the frontend and UI bind to; `127.0.0.1` by default. */
  ip?: string;
  dbFile?: string;
  /**
   * SQLite settings of `dbFile` (`--sqlite-pragma`), e.g. `{ journal_mode: 'WAL', synchronous: 'NORMAL' }`. SQLite's own
   * (a rollback journal, synced on every commit) unless given: the state then outlives a power cut, at the cost of a
   * sync per write, which on a busy disk made a test's cycle four times slower.
   */
  sqlitePragmas?: Record<string, string>;
  ui?: boolean;
  namespace?: string;
  log?: (line: string) => void;
  /** Keep running after this process exits; output goes to `logFile`. */
  detached?: boolean;
  /** Where the server's output goes, appended; an attached server keeps only its last lines in memory without one. */
  logFile?: string;
  /** Written with the server's pid once it is spawned, removed by `stop()`. */
  pidFile?: string;
  cliPath?: string;
  startTimeoutMs?: number;
  /** The Web UI decodes payloads through this codec server (`scratchpad codec-server`). */
  uiCodecEndpoint?: string;
  /** More `--dynamic-config-value` settings, by key. */
  dynamicConfig?: Record<string, unknown>;
}

/** A running dev server. */
export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  pid: number;
  stop(): Promise<void>;
}

/** `KEYWORD_LIST` → `KeywordList`, the spelling `temporal --search-attribute` takes. */
function cliTypeName(type: string): string {
  return type
    .split('_')
    .map((word) => word.charAt(0) + word.slice(1).toLowerCase())
    .join('');
}

/** The `temporal server start-dev` arguments for these settings. */
export function devServerArgs(settings: {
  ip: string;
  port: number;
  uiPort?: number;
  dbFile?: string;
  sqlitePragmas?: Record<string, string>;
  namespace: string;
  uiCodecEndpoint?: string;
  dynamicConfig?: Record<string, unknown>;
}) {
  const args = ['server', 'start-dev', '--ip', settings.ip, '--port', String(settings.port)];
  args.push(...(settings.uiPort === undefined ? ['--headless'] : ['--ui-port', String(settings.uiPort)]));
  if (settings.dbFile) {
    args.push('--db-filename', settings.dbFile);
    for (const [name, value] of Object.entries(settings.sqlitePragmas ?? {})) {
      args.push('--sqlite-pragma', `${name}=${value}`);
    }
  }
  if (settings.uiCodecEndpoint) args.push('--ui-codec-endpoint', settings.uiCodecEndpoint);
  const attributes = Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => `${name}=${cliTypeName(type)}`);
  args.push(...attributes.flatMap((attribute) => ['--search-attribute', attribute]));
  // The dev server polls its task transfer queue 20 times a second by default, which holds every workflow and
  // activity task ~40 ms before a worker sees it (measured by bench/cycle-overhead); a single-process server can poll
  // far more often.
  args.push('--dynamic-config-value', 'history.transferProcessorMaxPollRPS=10000');
  for (const [key, value] of Object.entries({ ...TIMER_SETTINGS, ...settings.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  args.push(...payloadLimitArgs());
  return [...args, '--namespace', settings.namespace, '--log-level', 'warn'];
}

function spawnServer(cli: string, args: string[], options: DevServerOptions, tail: string[]): ChildProcess {
  const record = (chunk: Buffer) => {
    tail.push(...chunk.toString().split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 30));
  };
  if (!options.detached) {
    const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let file = options.logFile ? fs.createWriteStream(options.logFile, { flags: 'a' }) : undefined;
    // A log that cannot be written (a full disk) must not end the process that runs the server: it stops being written.
    file?.on('error', (error) => {
      file = undefined;
      (options.log ?? logToStderr)(`the server's log ${options.logFile} is no longer written: ${error.message}`);
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        record(chunk);
        file?.write(chunk);
      });
    }
    child.once('close', () => file?.end());
    return child;
  }
  const output = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(cli, args, { stdio: ['ignore', output, output], detached: true });
  if (typeof output === 'number') fs.closeSync(output);
  child.unref();
  return child;
}

function outputTail(options: DevServerOptions, tail: string[]): string {
  const lines = options.detached && options.logFile ? lastLines(options.logFile, 30) : tail;
  const text = lines.filter(Boolean).slice(-30).join('\n');
  return text ? `\nLast output of the server:\n${text}` : '\nThe server printed nothing.';
}

async function waitUntilReady(address: string, namespace: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the Temporal dev server exited (${child.exitCode ?? child.signalCode}) before answering`);
    }
    if (await isNamespaceReady(address, namespace)) return;
    await sleep(100);
  }
  throw new Error(`the Temporal dev server did not answer at ${address} within ${timeoutMs / 1000} s`);
}

/** Starts `temporal server start-dev` with the project's search attributes and waits until its frontend answers. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? logToStderr;
  const cli = options.cliPath ?? (await ensureTemporalCli({ log }));
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const port = options.port ?? (await freePort(ip));
  const uiPort = options.ui === false ? undefined : (options.uiPort ?? (await freePort(ip)));
  const address = `${ip}:${port}`;
  const uiUrl = uiPort === undefined ? undefined : `http://${ip}:${uiPort}`;
  log(
    `starting the Temporal dev server at ${address}${uiUrl ? `, Web UI ${uiUrl}` : ''}, state in ${options.dbFile ?? 'memory'}`,
  );
  const started = Date.now();
  const tail: string[] = [];
  const child = spawnServer(
    cli,
    devServerArgs({
      ip,
      port,
      uiPort,
      dbFile: options.dbFile,
      sqlitePragmas: options.sqlitePragmas,
      namespace,
      uiCodecEndpoint: options.uiCodecEndpoint,
      dynamicConfig: options.dynamicConfig,
    }),
    options,
    tail,
  );
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  void spawnError.catch(() => undefined);
  const pid = child.pid;
  if (pid === undefined) return spawnError;
  if (options.pidFile) fs.writeFileSync(options.pidFile, `${pid}\n`);
  // A server tied to this process must not outlive it, even when it exits without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  if (!options.detached) process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await stopProcess(pid);
    if (options.pidFile) fs.rmSync(options.pidFile, { force: true });
  };
  try {
    await Promise.race([waitUntilReady(address, namespace, child, options.startTimeoutMs ?? 60_000), spawnError]);
  } catch (error) {
    await stop();
    throw new Error(`${errorMessage(error)}${outputTail(options, tail)}`);
  }
  log(`the Temporal dev server answers at ${address} (started in ${Date.now() - started} ms)`);
  return { address, uiUrl, pid, stop };
}
