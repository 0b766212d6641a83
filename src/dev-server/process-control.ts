import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether a process with this pid exists (one owned by another user counts). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sendSignal(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` runs a `temporal` binary; where /proc is missing, any live process counts. */
export function isTemporalProcess(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  try {
    return /temporal/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}

/** Sends `signal` (SIGTERM by default) to `pid`, then SIGKILL if it has not exited within `timeoutMs`. */
export async function stopProcess(pid: number, timeoutMs = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  if (!sendSignal(pid, signal)) return;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) sendSignal(pid, 'SIGKILL');
    await sleep(50);
  }
}

/** Whether `pid` runs `scratchpad worker` (bin/scratchpad.js); where /proc is missing, any live process counts. */
export function isScratchpadWorker(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.some((arg) => arg.endsWith('scratchpad.js')) && args.includes('worker');
  } catch {
    return process.platform !== 'linux';
  }
}

/**
 * Stops the process group `pid` leads (a detached process and what it started), as {@link stopProcess} stops one
 * process: `signal`, then SIGKILL to the group if its leader has not exited within `timeoutMs`.
 */
export async function stopProcessGroup(pid: number, timeoutMs = 10_000, signal: NodeJS.Signals = 'SIGTERM') {
  const deadline = Date.now() + timeoutMs;
  if (!sendSignal(-pid, signal)) return stopProcess(pid, timeoutMs, signal);
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) sendSignal(-pid, 'SIGKILL');
    await sleep(50);
  }
}
