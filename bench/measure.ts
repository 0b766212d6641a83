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

/** A mode measured by {@link measureInterleaved}. */
export interface Mode<T extends Sample> {
  label: string;
  runOnce(run: number): Promise<T>;
}

/**
 * Warms each mode up once (discarded), then runs them in turns, reversing the order every round, so load that
 * drifts during the benchmark (other processes, a growing database) falls on every mode alike.
 */
export async function measureInterleaved<T extends Sample>(modes: readonly Mode<T>[], runs: number): Promise<T[][]> {
  for (const mode of modes) progress(`${mode.label}: warm-up ${formatMs((await mode.runOnce(0)).ms)} ms`);
  const samples: T[][] = modes.map(() => []);
  for (let run = 1; run <= runs; run++) {
    const order = modes.map((_, index) => index);
    if (run % 2 === 0) order.reverse();
    for (const index of order) {
      const sample = await modes[index]!.runOnce(run);
      progress(`${modes[index]!.label}: run ${run}/${runs} ${formatMs(sample.ms)} ms`);
      samples[index]!.push(sample);
    }
  }
  return samples;
}

/** One mode alone: a discarded warm-up, then `runs` counted samples. */
export async function measureRuns<T extends Sample>(mode: Mode<T>, runs: number): Promise<T[]> {
  const [samples] = await measureInterleaved([mode], runs);
  return samples!;
}

/** Milliseconds `work` took, with its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/** Rows as an aligned text table: the first column left-aligned, the others right-aligned. */
export function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
        .join('  '),
    )
    .join('\n');
}

/**
 * `work` over every item with at most `limit` calls in flight, results in item order; every `reportMs` it reports
 * how many have finished, so a long round shows it is moving.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  report: (done: number) => void,
  reportMs = 15_000,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  // After a failure no new item starts, and the calls in flight settle before it is thrown: a caller that closes
  // its connection then leaves no retry behind to throw on a closed channel.
  let failure: { error: unknown } | undefined;
  const timer = setInterval(() => report(done), reportMs);
  const lane = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
        done++;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  } finally {
    clearInterval(timer);
  }
  if (failure) throw failure.error;
  return results;
}
