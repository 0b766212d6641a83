import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { agentWorkflowId, cycleWorkflowId } from '../src/common/ids';
import { historyStats, type PhaseTimes } from './history-stats';
import { mapLimited, median, progress } from './measure';
import type { TemporalTarget } from './temporal-target';
import { clusterTarget, devServerTarget } from './throughput-targets';
import { formatThroughput, type SizeResult, type TargetResult } from './throughput-report';
import { withBenchSession } from './throughput-session';
import { idleMemory } from './throughput-memory';
import { type BenchWorkers, agentCycle, floorCycle } from './throughput-workers';

const USAGE = `usage: node --expose-gc dist/bench/throughput.js [--sizes 10,100,1000] [--runs 3] [--targets dev,cluster] [--once-above 100] [--concurrency 250]
Sizes above --once-above run once; smaller ones --runs times, interleaved with the floor, median reported.
At most --concurrency cycles are started and awaited at once, in both shapes alike.`;

interface Options {
  sizes: number[];
  runs: number;
  targets: string[];
  onceAbove: number;
  concurrency: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    sizes: [10, 100, 1000],
    runs: 3,
    targets: ['dev', 'cluster'],
    onceAbove: 100,
    concurrency: 250,
  };
  for (let index = 0; index < argv.length; index++) {
    const value = argv[++index] ?? '';
    if (argv[index - 1] === '--sizes') options.sizes = value.split(',').map(Number);
    else if (argv[index - 1] === '--runs') options.runs = Number(value);
    else if (argv[index - 1] === '--targets') options.targets = value.split(',');
    else if (argv[index - 1] === '--once-above') options.onceAbove = Number(value);
    else if (argv[index - 1] === '--concurrency') options.concurrency = Number(value);
    else throw new Error(USAGE);
  }
  if (
    options.sizes.some((size) => !Number.isInteger(size) || size < 1) ||
    !(options.runs >= 1) ||
    !(options.concurrency >= 1)
  )
    throw new Error(USAGE);
  return options;
}

type Shape = 'agent' | 'floor';
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(0);
const IDLE_ENTITIES = 200;
interface Round {
  ms: number;
  latencies: number[];
  /** The id whose latency was the median, with that latency. */
  medianId: string;
  medianMs: number;
}

interface Session {
  client: Client;
  workers: BenchWorkers;
  /** Client calls in flight at most; the rest wait their turn (their latency counts from their own call). */
  concurrency: number;
}

async function round(session: Session, shape: Shape, size: number, tag: string): Promise<Round> {
  const { client, workers } = session;
  const ids = Array.from({ length: size }, (_, index) => `tp-${shape}-${tag}-${index}`);
  const started = performance.now();
  const cycle = async (id: string) => {
    const begin = performance.now();
    if (shape === 'agent') await agentCycle(client, workers.agentQueue, id);
    else await floorCycle(client, workers.floorQueue, id);
    return performance.now() - begin;
  };
  const report = (done: number) => progress(`${shape} x${size}: ${done} done after ${seconds(started)} s`);
  const latencies = await mapLimited(ids, session.concurrency, cycle, report).catch((error: unknown) => {
    progress(`${shape} x${size} failed after ${seconds(started)} s: ${(error as Error).message}`);
    throw error;
  });
  const ms = performance.now() - started;
  const order = latencies.map((latency, index) => ({ latency, index })).sort((a, b) => a.latency - b.latency);
  const middle = order[Math.floor(order.length / 2)]!;
  return { ms, latencies, medianId: ids[middle.index]!, medianMs: middle.latency };
}

/** Where the median cycle's time went: its entity's and its child cycle's tasks, from their histories. */
async function phases(client: Client, shape: Shape, id: string): Promise<PhaseTimes> {
  const entity = shape === 'agent' ? agentWorkflowId(id) : id;
  const cycle = shape === 'agent' ? cycleWorkflowId(id, 1) : `${id}/cycle/1`;
  const [parent, child] = await Promise.all([historyStats(client, entity), historyStats(client, cycle)]);
  const sum = (key: keyof PhaseTimes) => parent.phases[key] + child.phases[key];
  return {
    workflowTaskWaitMs: sum('workflowTaskWaitMs'),
    workflowTaskRunMs: sum('workflowTaskRunMs'),
    activityWaitMs: sum('activityWaitMs'),
    activityRunMs: sum('activityRunMs'),
  };
}

async function measureTarget(open: () => Promise<TemporalTarget>, options: Options): Promise<TargetResult> {
  return withBenchSession(open, ['agent', 'floor'], async ({ target, client, workers }) => {
    const session = { client, workers, concurrency: options.concurrency };
    const sizes: SizeResult[] = [];
    const stamp = Date.now().toString(36);
    for (const shape of ['agent', 'floor'] as const) await round(session, shape, 10, `${stamp}-warm`);
    for (const size of options.sizes) {
      const runs = size > options.onceAbove ? 1 : options.runs;
      const rounds: Record<Shape, Round[]> = { agent: [], floor: [] };
      for (let run = 1; run <= runs; run++) {
        const order: Shape[] = run % 2 === 1 ? ['agent', 'floor'] : ['floor', 'agent'];
        for (const shape of order) {
          const result = await round(session, shape, size, `${stamp}-${size}-${run}`);
          progress(`${target.description}: ${shape} x${size} run ${run}/${runs}: ${(result.ms / 1000).toFixed(1)} s`);
          rounds[shape].push(result);
        }
      }
      const result: SizeResult = {
        size,
        runs,
        agent: await summarizeShape(client, 'agent', rounds.agent, size),
        floor: await summarizeShape(client, 'floor', rounds.floor, size),
      };
      // A partial result survives a run cut short (1,000 agents can take long on a loaded machine).
      progress(`${target.description}: ${JSON.stringify(result)}`);
      sizes.push(result);
    }
    const idle: TargetResult['idle'] = {};
    for (const shape of ['agent', 'floor'] as const) {
      try {
        idle[shape] = await idleMemory(client, workers, shape, IDLE_ENTITIES, stamp);
      } catch (error) {
        // The throughput figures above stand; a server that falls over afterwards costs only this one.
        progress(`idle ${shape} memory not measured: ${(error as Error).message}`);
      }
    }
    return { description: target.description, sizes, idle };
  });
}

async function summarizeShape(client: Client, shape: Shape, rounds: Round[], size: number) {
  const ms = median(rounds.map((result) => result.ms));
  const all = rounds.flatMap((result) => result.latencies).sort((a, b) => a - b);
  const medianRound = [...rounds].sort((a, b) => a.ms - b.ms)[Math.floor(rounds.length / 2)]!;
  return {
    cyclesPerSecond: size / (ms / 1000),
    p50Ms: all[Math.floor(all.length * 0.5)]!,
    p99Ms: all[Math.min(all.length - 1, Math.floor(all.length * 0.99))]!,
    medianCycleMs: medianRound.medianMs,
    phases: await phases(client, shape, medianRound.medianId),
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  if (!global.gc) progress('run with node --expose-gc for the idle-agent memory figure');
  const results: TargetResult[] = [];
  for (const name of options.targets) {
    results.push(await measureTarget(name === 'cluster' ? clusterTarget : devServerTarget, options));
  }
  console.log(formatThroughput(results));
  console.log(JSON.stringify({ benchmark: 'throughput', results }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
