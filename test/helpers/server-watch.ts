import { Connection } from '@temporalio/client';
import { lastLines } from '../../src/dev-server/log-tail';

/** How the shared dev server answered a probe every few seconds through the run. */
export interface ServerWatch {
  /** Whether it stopped answering: its last probe, or three in a row, failed (one slow answer on a busy machine is not). */
  stoppedAnswering(): boolean;
  /** One line of figures; when probes failed, when, the first failure, and the end of the server's log. */
  report(): string;
  stop(): Promise<void>;
}

const INTERVAL_MS = 5_000;
const PROBE_DEADLINE_MS = 10_000;
const STREAK = 3;

/**
 * Probes the server with `DescribeNamespace`, which reads its database, as workers and clients do at start: a run whose
 * tests fail because the server stopped answering then says so once, with the server's own words, instead of in
 * hundreds of unrelated test failures.
 */
export async function watchServer(address: string, namespace: string, logFile: string): Promise<ServerWatch> {
  // No retry interceptor: a retried UNAVAILABLE would reach the probe as a deadline, without the server's words.
  const connection = await Connection.connect({ address, interceptors: [] });
  const started = Date.now();
  const latencies: number[] = [];
  const failures: { at: number; message: string }[] = [];
  let streak = 0;
  let longestStreak = 0;
  let probing: Promise<void> | undefined;
  const probe = async () => {
    const at = Date.now();
    try {
      await connection.withDeadline(at + PROBE_DEADLINE_MS, () =>
        connection.workflowService.describeNamespace({ namespace }),
      );
      latencies.push(Date.now() - at);
      streak = 0;
    } catch (error) {
      failures.push({ at: at - started, message: error instanceof Error ? error.message : String(error) });
      longestStreak = Math.max(longestStreak, ++streak);
    } finally {
      probing = undefined;
    }
  };
  // A probe still waiting on a slow server skips the next tick rather than queueing behind it.
  const timer = setInterval(() => {
    probing ??= probe();
  }, INTERVAL_MS);
  timer.unref();
  const stoppedAnswering = () => streak > 0 || longestStreak >= STREAK;

  return {
    stoppedAnswering,
    report() {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      const answered = sorted.length
        ? `answered in ${at(0.5)} ms median, ${at(0.99)} ms p99, ${sorted.at(-1)} ms at most`
        : 'none answered';
      const line = `dev server: ${latencies.length + failures.length} probes, ${failures.length} failed; ${answered}`;
      const first = failures[0];
      if (!first) return line;
      const seconds = failures.map((failure) => (failure.at / 1000).toFixed(0));
      const lines = [
        line,
        `failed at ${seconds.length > 12 ? `${seconds.slice(0, 12).join(', ')}, …` : seconds.join(', ')} s into the run` +
          ` (at most ${longestStreak} in a row${streak > 0 ? ', the last one too' : ''}); first: ${first.message}`,
      ];
      if (!stoppedAnswering()) return lines.join('\n');
      const tail = lastLines(logFile, 40);
      return [...lines, `the end of its log (${logFile}):`, ...tail].join('\n');
    },
    async stop() {
      clearInterval(timer);
      await probing;
      // The last word: a server that failed earlier probes and answers now has not stopped answering.
      await probe();
      await connection.close();
    },
  };
}
