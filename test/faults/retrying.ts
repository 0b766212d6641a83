import { setTimeout as sleep } from 'node:timers/promises';

/** Asks `probe` every 100 ms until `accept` takes its answer (a failed probe counts as none): servers restart. */
export async function retrying<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await sleep(100);
  }
}
