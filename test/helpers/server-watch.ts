import * as fs from 'node:fs';
import { Connection } from '@temporalio/client';

/** How the shared dev server answered a probe every few seconds through the run. */
export interface ServerWatch {
  /** Probes the server failed or did not answer within 10 s. */
  failed(): number;
  /** One line of figures, and when the server failed probes, since when and the end of its log. */
  report(): string;
  stop(): Promise<void>;
}

const INTERVAL_MS = 5_000;
const PROBE_DEADLINE_MS = 10_000;

/**
 * Probes the server with `DescribeNamespace`, which reads its database, as workers and clients do at start: a run whose
 * tests fail because the server stopped answering then says so once, with the server's own words, instead of in
 * hundreds of unrelated test failures.
 */
export async function watchServer(address: string, namespace: string, logFile: string): Promise<ServerWatch> {
  const connection = await Connection.connect({ address });
  const started = Date.now();
  const latencies: number[] = [];
  const failures: { at: number; message: string }[] = [];
  let probing: Promise<void> | undefined;
  const probe = async () => {
    const at = Date.now();
    try {
      await connection.withDeadline(at + PROBE_DEADLINE_MS, () =>
        connection.workflowService.describeNamespace({ namespace }),
      );
      latencies.push(Date.now() - at);
    } catch (error) {
      failures.push({ at: at - started, message: error instanceof Error ? error.message : String(error) });
    } finally {
      probing = undefined;
    }
  };
  // A probe still waiting on a slow server skips the next tick rather than queueing behind it.
  const timer = setInterval(() => {
    probing ??= probe();
  }, INTERVAL_MS);
  timer.unref();

  return {
    failed: () => failures.length,
    report() {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      const answered = sorted.length
        ? `answered in ${at(0.5)} ms median, ${at(0.99)} ms p99, ${sorted.at(-1)} ms at most`
        : 'none answered';
      const line = `dev server: ${latencies.length + failures.length} probes, ${failures.length} failed; ${answered}`;
      if (failures.length === 0) return line;
      const first = failures[0]!;
      const last = failures.at(-1)!;
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
      return [
        line,
        `failed from ${(first.at / 1000).toFixed(0)} s to ${(last.at / 1000).toFixed(0)} s into the run; first: ${first.message}`,
        `its log (${log.length} lines, ${logFile}) ends:`,
        ...log.slice(-40),
      ].join('\n');
    },
    async stop() {
      clearInterval(timer);
      await probing;
      await connection.close();
    },
  };
}
