/** Writes one progress line to stderr, so stdout holds only the report. */
export function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Milliseconds with enough digits to tell sub-millisecond values apart. */
export function formatMs(ms: number): string {
  return ms < 1 ? ms.toFixed(4) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0);
}

/** One timed run of a mode. */
export interface Sample {
  ms: number;
}

/** Runs `runOnce` once to warm up (discarded), then `runs` times; returns the counted samples. */
export async function measureRuns<T extends Sample>(
  label: string,
  runs: number,
  runOnce: (run: number) => Promise<T>,
): Promise<T[]> {
  const warmUp = await runOnce(0);
  progress(`${label}: warm-up ${formatMs(warmUp.ms)} ms`);
  const samples: T[] = [];
  for (let run = 1; run <= runs; run++) {
    const sample = await runOnce(run);
    progress(`${label}: run ${run}/${runs} ${formatMs(sample.ms)} ms`);
    samples.push(sample);
  }
  return samples;
}

/** Milliseconds `work` took, with its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}
