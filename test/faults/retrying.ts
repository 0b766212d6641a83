import { waitFor } from '../helpers/temporal';

/** Asks `probe` every 100 ms until `accept` takes its answer (a failed probe counts as none): servers restart. */
export function retrying<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  return waitFor(probe, accept, { timeoutMs, intervalMs: 100 });
}
