/**
 * Seed 002 benchmark: the context bytes the model sees for large observations against a blind full
 * observation, and `put` / `scratchpad_read` latency by mode for a 10 MB entry on SQLite and on Redis.
 * Usage: node dist/bench/observations.js [--runs N]. Starts its own redis-server; prints a table, then one JSON line.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createActivities } from '../src/activities';
import { runToolCall } from '../src/activities/tools';
import { scratchpadRead } from '../src/activities/tools/scratchpad-read';
import type { ToolOptions } from '../src/activities/tools/types';
import { type Observation, observationText, toolNote } from '../src/core/tools/observation';
import type { ObservationStore } from '../src/activities/observations/entry';
import { RedisObservationStore } from '../src/activities/observations/redis-store';
import { startRedisServer } from '../test/helpers/redis-server';
import { createObservationRuntime } from '../src/activities/observations/runtime';
import { SqliteObservationStore } from '../src/activities/observations/sqlite-store';
import { SYNTHETIC_MAX_BYTES, observationBytes } from '../src/activities/observations/synthetic';
import { formatMs, median, progress } from './measure';

const SIZES = [
  ['1 KB', 1_000],
  ['100 KB', 100_000],
  ['1 MB', 1_000_000],
  ['10 MB', 10_000_000],
] as const;
const TEN_MB = 10_000_000;
const TURN = 'bench-cycle';

/** Log text of exactly `bytes` UTF-8 bytes, an emoji now and then, an ERROR as the last line. */
function logText(bytes: number): string {
  const last = 'ERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT\n';
  const lines: string[] = [];
  let size = last.length;
  for (let index = 0; ; index++) {
    const line = `INFO 2026-04-26 10:00:01 event number ${index}${index % 97 === 0 ? ' 😀' : ''}\n`;
    if (size + Buffer.byteLength(line) > bytes) break;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  const padding = bytes - size;
  return `${lines.join('')}${padding > 0 ? `${'.'.repeat(padding - 1)}\n` : ''}${last}`;
}

interface ContextRow {
  size: string;
  blindBytes: number;
  contextBytes: number;
  syntheticBytes: number | null;
  offloaded: boolean;
}

async function contextRows(tools: ToolOptions): Promise<ContextRow[]> {
  const activities = createActivities({ resolveModel: () => undefined as never, tools });
  const rows: ContextRow[] = [];
  for (const [label, bytes] of SIZES) {
    const file = `log-${bytes}.txt`;
    fs.writeFileSync(path.join(tools.sandboxRoot, file), logText(bytes));
    const args = { path: file };
    // The same observation, uncut and not offloaded: what a blind full observation would put in the prompt.
    const blind = await runToolCall({ cycleId: TURN, step: 1, name: 'fs_read', args }, tools);
    const observation = await activities.runTool({ cycleId: TURN, step: 1, name: 'fs_read', args });
    const offloaded = typeof observation.scratchpad_id === 'string';
    rows.push({
      size: label,
      blindBytes: Buffer.byteLength(`[TOOL] fs_read(${JSON.stringify(args)}) → ${observationText(blind)}`),
      contextBytes: Buffer.byteLength(toolNote('fs_read', args, observation)),
      syntheticBytes: offloaded ? observationBytes(observation) : null,
      offloaded,
    });
  }
  return rows;
}

const READS: [string, Record<string, unknown>][] = [
  ['head 2000', { mode: 'head' }],
  ['tail 2000', { mode: 'tail' }],
  ['range 2000 @ 5M', { mode: 'range', start: 5_000_000, end: 5_002_000 }],
  ['lines 100 @ middle', { mode: 'lines', line_start: 100_000, line_end: 100_099 }],
  ['grep (last line)', { mode: 'grep', pattern: 'LAST_CRITICAL_EVENT' }],
  ['grep (no match)', { mode: 'grep', pattern: 'NO_SUCH_EVENT' }],
];

interface LatencyRow {
  backend: string;
  operation: string;
  coldMs: number | null;
  warmMs: number;
}

async function timeMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

// Cold: a fresh runtime per run, so the entry is fetched from the store and decoded; warm: its content cache hit.
async function latencyRows(backend: string, store: ObservationStore, runs: number): Promise<LatencyRow[]> {
  const text = logText(TEN_MB);
  const puts: number[] = [];
  let id = '';
  for (let run = 0; run <= runs; run++) {
    const ms = await timeMs(
      async () => ({ id } = await store.put({ turnId: TURN, step: 1, kind: 'text', content: text })),
    );
    if (run > 0) puts.push(ms);
  }
  progress(`${backend}: put ${formatMs(median(puts))} ms`);
  const rows: LatencyRow[] = [{ backend, operation: 'put 10 MB', coldMs: null, warmMs: median(puts) }];
  const warm = createObservationRuntime(store);
  for (const [label, args] of READS) {
    const call = { cycleId: TURN, step: 2, name: 'scratchpad_read', args: { scratchpad_id: id, ...args } };
    const cold: number[] = [];
    const hot: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const coldMs = await timeMs(async () => check(await scratchpadRead(call, createObservationRuntime(store))));
      const warmMs = await timeMs(async () => check(await scratchpadRead(call, warm)));
      if (run === 0) continue;
      cold.push(coldMs);
      hot.push(warmMs);
    }
    rows.push({ backend, operation: `read ${label}`, coldMs: median(cold), warmMs: median(hot) });
    progress(`${backend}: ${label} cold ${formatMs(median(cold))} ms, warm ${formatMs(median(hot))} ms`);
  }
  return rows;
}

function check(observation: Observation): void {
  if (!observation.ok) throw new Error(`read failed: ${observation.error}`);
}

function parseRuns(argv: readonly string[]): number {
  if (argv.length === 0) return 7;
  const runs = Number(argv[1]);
  if (argv[0] !== '--runs' || !Number.isInteger(runs) || runs < 1 || argv.length > 2) {
    throw new Error('usage: node dist/bench/observations.js [--runs N]');
  }
  return runs;
}

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) => row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  ');
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...cells.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  const runs = parseRuns(process.argv.slice(2));
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-observations-'));
  const sandboxRoot = path.join(directory, 'sandbox');
  fs.mkdirSync(sandboxRoot);
  const tools = { sandboxRoot, shellAllow: [], shellTimeoutMs: 1000, fetchAllowHosts: [], fetchMaxBytes: 1 };
  const redis = await startRedisServer();
  const sqlite = new SqliteObservationStore(path.join(directory, 'observations.db'));
  const redisStore = new RedisObservationStore(redis.url);
  try {
    const context = await contextRows(tools);
    const latency = [...(await latencyRows('sqlite', sqlite, runs)), ...(await latencyRows('redis', redisStore, runs))];
    const rangeGrep = latency.filter((row) => row.backend === 'sqlite' && /range|grep/.test(row.operation));
    const targets = {
      syntheticUnderCap: context.every(
        (row) => row.syntheticBytes === null || row.syntheticBytes < SYNTHETIC_MAX_BYTES,
      ),
      sqliteRangeGrepWarmUnder50ms: rangeGrep.every((row) => row.warmMs < 50),
      sqliteRangeGrepColdUnder50ms: rangeGrep.every((row) => (row.coldMs ?? 0) < 50),
    };
    const output = [
      'Context bytes the model sees for one fs_read observation (the [TOOL] note) vs a blind full observation',
      table(
        ['size', 'blind full', 'in context', 'synthetic JSON', 'offloaded', 'reduction'],
        context.map((row) => [
          row.size,
          row.blindBytes,
          row.contextBytes,
          row.syntheticBytes ?? '-',
          row.offloaded ? 'yes' : 'no',
          `${(row.blindBytes / row.contextBytes).toFixed(1)}x`,
        ]),
      ),
      '',
      `10 MB entry latency, median of ${runs} runs (ms); cold = fresh worker cache, warm = cached decoded content`,
      table(
        ['backend', 'operation', 'cold', 'warm'],
        latency.map((row) => [
          row.backend,
          row.operation,
          row.coldMs === null ? '-' : formatMs(row.coldMs),
          formatMs(row.warmMs),
        ]),
      ),
      '',
      `targets: synthetic < ${SYNTHETIC_MAX_BYTES} B: ${targets.syntheticUnderCap ? 'met' : 'MISSED'}; ` +
        `SQLite range/grep < 50 ms: warm ${targets.sqliteRangeGrepWarmUnder50ms ? 'met' : 'MISSED'}, ` +
        `cold ${targets.sqliteRangeGrepColdUnder50ms ? 'met' : 'MISSED'}`,
    ];
    process.stdout.write(
      `${output.join('\n')}\n${JSON.stringify({ bench: 'observations', runs, context, latency, targets })}\n`,
    );
  } finally {
    await redisStore.close();
    await sqlite.close();
    await redis.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
