import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

/** What `scripts/ensure-llama-server.sh` provides, cached outside the repo. */
export interface LlamaFiles {
  server: string;
  model: string;
  /** A chat template with tool calling, for a server that must offer it. */
  toolTemplate: string;
}

/** A `llama-server` this process started on loopback. */
export interface LlamaServer {
  /** Up to and including `/v1`, as a model spec names it. */
  baseURL: string;
  url: string;
  pid: number;
  /** The server's own log so far (the last 64 KB): what it did with a request. */
  log(): string;
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  files: LlamaFiles;
  /** Context size in tokens (`-c`). */
  contextSize?: number;
  /** Serve with the tool-capable template instead of the model's own. */
  tools?: boolean;
  port?: number;
  /**
   * How hard a thread that waits for work polls (`--poll`, 0 to 100; llama.cpp's default, 50, spins). 0 sleeps
   * instead: for servers that share the cores with other servers or processes (the tests' files run in parallel),
   * where a spinning thread takes the core the thread it waits for needs.
   */
  poll?: number;
  /**
   * Threads for generation and prompt processing (`-t`); llama.cpp's default is one per core. Each token is computed
   * in steps that every thread must finish before the next starts, so on cores that other processes also want, one
   * thread that waits for a core holds up the rest: with two threads on two busy cores generation fell to 2 to 5
   * tokens a second, with one it stayed near 35. The count changes the arithmetic's rounding, so a tiny model's reply
   * can differ with it; given, the replies no longer depend on how many cores the machine has.
   */
  threads?: number;
}

function repoRoot(): string {
  for (let directory = __dirname; directory !== path.dirname(directory); directory = path.dirname(directory)) {
    if (fs.existsSync(path.join(directory, 'scripts', 'ensure-llama-server.sh'))) return directory;
  }
  throw new Error('scripts/ensure-llama-server.sh not found: llama-server is provisioned from a clone of the repo');
}

/**
 * The server, model and template, built and downloaded on first use (about 10 minutes on 2 cores; later calls read
 * the cache). `LLAMA_SERVER_PATH` and `LLAMA_MODEL_PATH` name ones of the user's own instead.
 */
export async function ensureLlamaFiles(log: (line: string) => void = () => undefined): Promise<LlamaFiles> {
  const script = path.join(repoRoot(), 'scripts', 'ensure-llama-server.sh');
  const child = promisify(execFile)(script, [], { maxBuffer: 1 << 20, timeout: 60 * 60_000 });
  child.child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) log(line);
  });
  const { stdout } = await child;
  const [server, model, toolTemplate] = stdout.trim().split('\n');
  if (!server || !model || !toolTemplate) throw new Error(`unexpected output of ${script}: ${stdout.slice(0, 200)}`);
  return {
    server: process.env.LLAMA_SERVER_PATH || server,
    model: process.env.LLAMA_MODEL_PATH || model,
    toolTemplate,
  };
}

const START_TIMEOUT_MS = 60_000;
const LOG_BYTES = 64 * 1024;

/** Starts `llama-server` on a free loopback port with one slot, and waits until its model has loaded. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const port = options.port ?? (await freePort());
  const args = [
    ['-m', options.files.model],
    ['--host', '127.0.0.1', '--port', String(port)],
    ['-c', String(options.contextSize ?? 4096), '-np', '1'],
    options.poll === undefined ? [] : ['--poll', String(options.poll)],
    options.threads === undefined ? [] : ['-t', String(options.threads)],
    ['--jinja', '--no-webui'],
    options.tools ? ['--chat-template-file', options.files.toolTemplate] : [],
  ].flat();
  const child = spawn(options.files.server, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-LOG_BYTES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const server: LlamaServer = {
    baseURL: `${url}/v1`,
    url,
    pid: child.pid as number,
    log: () => log,
    stop: () => stopChild(child),
  };
  try {
    await waitHealthy(url, child, () => log);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`llama-server exited (${child.exitCode ?? child.signalCode}): ${log().slice(-500)}`);
    }
    const healthy = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`llama-server did not become healthy in ${START_TIMEOUT_MS / 1000} s: ${log().slice(-500)}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
