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

/** Sends SIGTERM to `pid`, then SIGKILL if it has not exited within `timeoutMs`. */
export async function stopProcess(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(50);
  }
}
