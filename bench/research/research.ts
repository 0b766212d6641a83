/**
 * `npm run bench:research`: the research board under 1, 4 and 16 concurrent workers on a local dev server. Each
 * worker claims its fact and writes VERIFIED after one fetch, so the supervisor's `write` update is the work
 * measured: accepted writes per second, p50/p99 write latency (client side of the update, inside the `boardWrite`
 * activity), and supervisor history bytes per board entry. Medians of several runs; throughput is also given as a
 * ratio against the 1-worker baseline measured in the same process.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { RoutedScriptedProvider } from '../../src/activities/model/routed';
import { fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute } from '../../src/cli/demo/research-scripts';
import { researchWorkflowId } from '../../src/common/ids';
import { workerSinks, workflowWorkerOptions } from '../../src/workers/create-worker';
import { parseBenchOptions } from '../bench-options';
import { formatMs, median, progress } from '../measure';
import { openTemporalTarget } from '../temporal-target';

const WORKER_COUNTS = [1, 4, 16];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2));
  const runs = options.runs;
  const target = await openTemporalTarget(options);
  const entities = Array.from({ length: Math.max(...WORKER_COUNTS) }, (_, i) => `Company${i + 1}`);
  const web = await serveFixtureWeb(
    fixturePages(Object.fromEntries(entities.map((e) => [e, { revenue: `USD ${e.length},000` }]))),
  );
  const connection = await NativeConnection.connect({ address: target.address });
  const client = new Client({
    connection: await Connection.connect({ address: target.address }),
    namespace: target.namespace,
  });
  const latencies: number[] = [];
  let routes: Record<string, unknown[]> = {};
  const model = { current: new RoutedScriptedProvider({}) };
  const resolveModel = createModelResolver({
    defaultSpec: 'scripted:bench',
    providers: { 'scripted:bench': { spec: 'scripted:bench', complete: (r, s) => model.current.complete(r, s) } },
  });
  const activities = createActivities({
    resolveModel,
    tools: {
      sandboxRoot: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-research-')),
      shellAllow: [],
      shellTimeoutMs: 1000,
      ...web.allowance,
      fetchMaxBytes: 1 << 20,
      searchUrl: web.searchUrl,
    },
    client,
  });
  const timedWrite: typeof activities.boardWrite = async (args) => {
    const started = performance.now();
    const outcome = await activities.boardWrite(args);
    latencies.push(performance.now() - started);
    return outcome;
  };
  const taskQueue = `bench-research-${Date.now()}`;
  const worker = await Worker.create({
    connection,
    namespace: target.namespace,
    taskQueue,
    ...workflowWorkerOptions(),
    sinks: workerSinks(),
    activities: { ...activities, boardWrite: timedWrite },
    maxConcurrentActivityTaskExecutions: 64,
  });
  const rows: string[] = [];
  try {
    await worker.runUntil(async () => {
      const baseline: number[] = [];
      for (const count of WORKER_COUNTS) {
        const samples: { rate: number; p50: number; p99: number; bytesPerEntry: number }[] = [];
        for (let run = 0; run <= runs; run++) {
          const facts = entities.slice(0, count);
          routes = Object.fromEntries(
            facts.map((entity) => [
              factRoute(entity, 'revenue'),
              [
                { tool: 'web_fetch', args: { url: `${web.base}/${entity.toLowerCase()}` } },
                {
                  tool: 'board_write',
                  args: {
                    status: 'VERIFIED',
                    value: `${entity.length},000`,
                    source_url: `${web.base}/${entity.toLowerCase()}`,
                    step: 1,
                    quote: `revenue USD ${entity.length},000`,
                  },
                },
              ],
            ]),
          );
          model.current = new RoutedScriptedProvider(routes as never);
          latencies.length = 0;
          const runId = `bench-${count}-${run}-${Date.now().toString(36)}`;
          const started = performance.now();
          const handle = await client.workflow.start('research', {
            taskQueue,
            workflowId: researchWorkflowId(runId),
            args: [{ runId, question: 'bench', entities: facts, fields: ['revenue'], maxWorkers: count }],
          });
          const result = await handle.result();
          const seconds = (performance.now() - started) / 1000;
          if (result.outcome !== 'complete') throw new Error(`run ${runId} ended ${result.outcome}`);
          const history = await handle.fetchHistory();
          const bytes = Buffer.byteLength(JSON.stringify(history));
          // Run 0 warms the worker and is discarded.
          if (run === 0) continue;
          samples.push({
            rate: latencies.length / seconds,
            p50: percentile(latencies, 50),
            p99: percentile(latencies, 99),
            bytesPerEntry: bytes / result.entries,
          });
          progress(`${count} workers, run ${run}: ${latencies.length} writes in ${seconds.toFixed(2)} s`);
        }
        const rate = median(samples.map((s) => s.rate));
        if (count === WORKER_COUNTS[0]) baseline.push(rate);
        rows.push(
          `| ${count} | ${rate.toFixed(1)} | ${(rate / (baseline[0] ?? rate)).toFixed(2)}× | ${formatMs(median(samples.map((s) => s.p50)))} | ${formatMs(median(samples.map((s) => s.p99)))} | ${Math.round(median(samples.map((s) => s.bytesPerEntry)))} |`,
        );
      }
    });
  } finally {
    await web.close();
    await connection.close();
    await target.stop();
  }
  process.stdout.write(
    [
      `Research board on ${target.description}; median of ${runs} runs per row (a warm-up run discarded).`,
      '',
      '| workers | accepted writes/s | vs 1 worker | write p50 ms | write p99 ms | history bytes/entry |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
