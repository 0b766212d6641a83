import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../src/dev-server/free-port';

/** A throwaway `redis-server` this process started. */
export interface RedisServerHandle {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** Where and how to run it; a fresh port and directory, without persistence, unless given. */
export interface RedisServerOptions {
  port?: number;
  /** Kept by `stop()` when given, so a server restarted on it finds its data. */
  directory?: string;
  /** Append-only file synced on every write: data survives SIGKILL (the fault suite). */
  persistent?: boolean;
}

const READY = 'Ready to accept connections';
const START_TIMEOUT_MS = 10_000;

/**
 * Starts the real `redis-server` binary on a free loopback port, without persistence, for tests and benchmarks.
 * Fails with a clear message when the binary is missing.
 */
export async function startRedisServer(
  binary = 'redis-server',
  options: RedisServerOptions = {},
): Promise<RedisServerHandle> {
  const directory = options.directory ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-redis-')));
  const owned = options.directory === undefined;
  const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let lastError: Error | undefined;
  // The free port can be taken between probing and binding; try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      const child = await spawnReady(binary, [...persistence, '--port', String(port)], directory);
      const stop = () => stopChild(child, owned ? directory : undefined);
      return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid as number, stop };
    } catch (error) {
      lastError = error as Error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
    }
  }
  if (owned) await fs.rm(directory, { recursive: true, force: true });
  throw lastError ?? new Error('redis-server did not start');
}

function spawnReady(binary: string, settings: string[], directory: string): Promise<ChildProcess> {
  const args = [...settings, '--bind', '127.0.0.1', '--save', ''];
  const child = spawn(binary, [...args, '--dir', directory, '--loglevel', 'notice'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not start in ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes(READY)) return;
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      child
        .removeAllListeners('exit')
        .removeAllListeners('error')
        .on('error', () => undefined);
      resolve(child);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        error.message = `${binary} not found on PATH: install Redis (Debian: apt-get install redis-server)`;
      }
      fail(error);
    });
    child.on('exit', (code) => fail(new Error(`redis-server exited with code ${code}:\n${output}`)));
  });
}

async function stopChild(child: ChildProcess, directory: string | undefined): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
  if (directory) await fs.rm(directory, { recursive: true, force: true });
}
