import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive, stopProcess } from '../process-control';
import type { ClusterProcess } from './layout';

/**
 * Starts `command` in its own session (it outlives this process), output written to `<logDir>/<name>.log`.
 * `wrap` runs it under another program (e.g. `unshare`) while the pid stays the program's own (exec).
 */
export function spawnLogged(
  name: string,
  command: string,
  args: string[],
  options: {
    logDir: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    stopSignal?: NodeJS.Signals;
    /** What its command line contains once running, when `command` execs another program. */
    program?: string;
  },
): ClusterProcess {
  fs.mkdirSync(options.logDir, { recursive: true });
  const log = path.join(options.logDir, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  try {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
    return { name, pid: child.pid, log, program: options.program ?? command, stopSignal: options.stopSignal };
  } finally {
    fs.closeSync(fd);
  }
}

/** The last lines of a log, for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line))
      .join('\n');
  } catch {
    return '(no log)';
  }
}

/** Polls `ready` until it holds; fails with the process's log tail when it exits or `timeoutMs` passes. */
export async function waitReady(
  process: ClusterProcess,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready()) return;
    const alive = isProcessAlive(process.pid);
    if (!alive || Date.now() > deadline) {
      const why = alive ? `not ready after ${timeoutMs / 1000} s` : 'exited';
      throw new Error(`${process.name} ${why}; ${process.log} ends with:\n${logTail(process.log)}`);
    }
    await sleep(250);
  }
}

/** Whether the recorded pid still runs the recorded program (pids get reused). */
export function isRunning(process: ClusterProcess): boolean {
  if (!isProcessAlive(process.pid)) return false;
  try {
    return fs.readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').includes(process.program);
  } catch {
    return true;
  }
}

/** Stops processes in reverse start order, each with its clean-shutdown signal, SIGKILL after 15 s. */
export async function stopAll(processes: ClusterProcess[], log: (line: string) => void): Promise<void> {
  for (const process of [...processes].reverse()) {
    if (!isRunning(process)) continue;
    log(`stopping ${process.name} (pid ${process.pid})`);
    await stopProcess(process.pid, 15_000, process.stopSignal);
  }
}
