import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { runInProcess } from './cli-in-process';
import { waitFor } from './temporal';

/** bin/scratchpad.js, which loads dist/: `npm run build` first. */
export const BIN = path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where a command runs: its home, its task queue and any more variables. */
export interface CliPlace {
  home: string;
  taskQueue: string;
  env?: Record<string, string>;
}

/**
 * The whole environment of a command: the test dev server, `home` as its home, and only the variables given. Each test
 * has a task queue of its own, so a command may run a worker in its process (SCRATCHPAD_IN_PROCESS_WORKER) unless
 * the test's `env` says `false`.
 */
export function cliEnvironment(place: CliPlace): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: place.home,
    SCRATCHPAD_HOME: place.home,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS ?? '',
    SCRATCHPAD_TASK_QUEUE: place.taskQueue,
    SCRATCHPAD_IN_PROCESS_WORKER: 'true',
    ...place.env,
  };
}

/**
 * Commands that are about their process: they run until stopped, manage processes, read stdin or load the worker's
 * native runtime to replay. They are always spawned.
 */
const PROCESS_COMMANDS = new Set('worker dev up down server console codec-server demo chat replay timeline'.split(' '));

/**
 * Whether a command can run in the test's process ({@link runInProcess}): one that can only act as a client, because
 * it may not run a worker of its own (SCRATCHPAD_IN_PROCESS_WORKER=false), reads no input, starts no telemetry (once
 * per process) and is not one of {@link PROCESS_COMMANDS}.
 */
function runsInProcess(args: string[], env: Record<string, string>, input: string | undefined): boolean {
  const command = args.find((word, index) => !word.startsWith('-') && args[index - 1] !== '--config');
  return (
    input === undefined &&
    env.SCRATCHPAD_IN_PROCESS_WORKER === 'false' &&
    !Object.keys(env).some((name) => name.startsWith('OTEL_')) &&
    !PROCESS_COMMANDS.has(command ?? '')
  );
}

/**
 * Runs the command against the test dev server, with `home` as its home and only the environment given here: nothing
 * of the test process's configuration leaks in. A command that can only act as a client runs in the test's process
 * (see {@link runsInProcess}); any other runs as a user's shell would run it.
 */
export function runCli(args: string[], options: CliPlace & { input?: string; timeoutMs?: number }): Promise<CliRun> {
  const env = cliEnvironment(options);
  const timeout = options.timeoutMs ?? 90_000;
  if (runsInProcess(args, env, options.input)) return runInProcess(args, env, timeout);
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env, timeout }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * A command that runs until stopped (`scratchpad worker`), in a process group of its own (`setsid`), so that
 * {@link BackgroundCli.stop} ends it together with what it started (MCP servers).
 */
export class BackgroundCli {
  stdout = '';
  stderr = '';
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static start(args: string[], place: CliPlace): BackgroundCli {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cliEnvironment(place),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new BackgroundCli(child);
  }

  /** Ctrl-C: SIGINT to the command alone, as a terminal sends it. */
  interrupt(): void {
    if (this.child.pid !== undefined) process.kill(this.child.pid, 'SIGINT');
  }

  /** The command's exit code once it has exited (null when a signal ended it). */
  async exitCode(): Promise<number | null> {
    await this.exited;
    return this.child.exitCode;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once stderr matches `pattern`; rejects, with what the command printed, when it exits or times out. */
  async waitForStderr(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    // A timeout is reported below, with what the command printed.
    await waitFor(() => pattern.test(this.stderr) || !this.alive, timeoutMs).catch(() => undefined);
    if (!pattern.test(this.stderr)) {
      throw new Error(
        `${this.alive ? 'timed out' : 'exited'} waiting for ${pattern} on stderr:\n${this.stderr}${this.stdout}`,
      );
    }
  }

  /** SIGKILLs the command's whole process group, and resolves once the command is gone. */
  async stop(): Promise<void> {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await this.exited;
  }
}

/**
 * One `scratchpad worker` on the test file's task queue, allowed any scripted model, for the commands whose worker is
 * not what they test: each names its model (`--model scripted:FILE`) and finds this worker polling. A command that
 * runs a worker in its own process spends about 2 s of CPU, one served by a running worker about 0.5. Started before
 * the file's tests (`place` is read then), stopped after them.
 */
export function useSharedWorker(place: () => CliPlace): void {
  let worker: BackgroundCli | undefined;
  beforeAll(async () => {
    worker = BackgroundCli.start(['worker', '--models', 'scripted:*'], place());
    await worker.waitForStderr(/Worker polling/, 60_000);
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
  });
}
