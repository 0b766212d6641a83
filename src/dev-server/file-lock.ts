import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from './process-control';

async function tryAcquire(lockPath: string): Promise<number | undefined> {
  const staging = `${lockPath}.${process.pid}.${randomUUID()}`;
  await fs.writeFile(staging, `${process.pid}\n`);
  try {
    // link() fails when the lock exists, so the lock appears atomically and already holds our pid.
    await fs.link(staging, lockPath);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number.parseInt(await fs.readFile(lockPath, 'utf8').catch(() => ''), 10);
    return Number.isNaN(holder) ? 0 : holder;
  } finally {
    await fs.rm(staging, { force: true });
  }
}

/** Runs `task` while holding the lock file; waits while a live process holds it and takes over a dead one's. */
export async function withFileLock<T>(
  lockPath: string,
  log: (line: string) => void,
  task: () => Promise<T>,
  timeoutMs = 30 * 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let reported = false;
  for (;;) {
    const holder = await tryAcquire(lockPath);
    if (holder === undefined) break;
    if (holder === 0 || !isProcessAlive(holder)) {
      log(`removing stale lock ${lockPath}${holder ? ` left by pid ${holder}` : ''}`);
      await fs.rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for pid ${holder} to release ${lockPath}`);
    if (!reported) log(`waiting for pid ${holder}, which holds ${lockPath}`);
    reported = true;
    await sleep(1000);
  }
  try {
    return await task();
  } finally {
    await fs.rm(lockPath, { force: true });
  }
}
