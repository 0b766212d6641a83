import type { PhaseTimes } from './history-stats';
import { table } from './measure';
import type { IdleMemory } from './throughput-memory';

/** The goal: agent cycles at least this fraction of the same-shape floor's cycles per second. */
export const THROUGHPUT_RATIO_TARGET = 0.8;

export interface ShapeSummary {
  cyclesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The median cycle of the median run, whose history {@link phases} comes from. */
  medianCycleMs: number;
  phases: PhaseTimes;
}

export interface SizeResult {
  size: number;
  runs: number;
  agent: ShapeSummary;
  floor: ShapeSummary;
}

export interface TargetResult {
  description: string;
  sizes: SizeResult[];
  /** V8 heap (and external) growth per entity left idle in a worker after one cycle; absent if not measured. */
  idle: Partial<Record<'agent' | 'floor', IdleMemory>>;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);

function phaseCells(shape: ShapeSummary): string {
  const { workflowTaskWaitMs, workflowTaskRunMs, activityWaitMs, activityRunMs } = shape.phases;
  const other = shape.medianCycleMs - workflowTaskWaitMs - workflowTaskRunMs - activityWaitMs - activityRunMs;
  return [workflowTaskWaitMs, workflowTaskRunMs, activityWaitMs, activityRunMs, other].map(seconds).join(' / ');
}

/** One throughput table and one where-the-time-goes table per server. */
export function formatThroughput(results: readonly TargetResult[]): string {
  const sections = results.map((result) => {
    const rows = [
      ['agents', 'runs', 'agent cycles/s', 'p50 s', 'p99 s', 'floor cycles/s', 'p50 s', 'p99 s', 'ratio'],
      ...result.sizes.map(({ size, runs, agent, floor }) => [
        String(size),
        String(runs),
        agent.cyclesPerSecond.toFixed(2),
        seconds(agent.p50Ms),
        seconds(agent.p99Ms),
        floor.cyclesPerSecond.toFixed(2),
        seconds(floor.p50Ms),
        seconds(floor.p99Ms),
        `${(agent.cyclesPerSecond / floor.cyclesPerSecond).toFixed(2)}x`,
      ]),
    ];
    const phases = [
      ['agents', 'median agent cycle: wft wait / wft run / activity wait / activity run / other (s)', 'floor (s)'],
      ...result.sizes.map(({ size, agent, floor }) => [String(size), phaseCells(agent), phaseCells(floor)]),
    ];
    const kib = (shape: 'agent' | 'floor') => {
      const idle = result.idle[shape];
      return idle ? `${(idle.bytesEach / 1024).toFixed(1)} KiB each (${idle.cached} cached)` : 'not measured';
    };
    const memory = `idle in a worker, V8 heap: agent ${kib('agent')}; floor entity ${kib('floor')}`;
    return `${result.description}\n${table(rows)}\n\n${table(phases)}\n${memory}`;
  });
  return [
    ...sections,
    `goal: agent cycles/s >= ${THROUGHPUT_RATIO_TARGET}x the floor (an entity workflow whose child runs the same three activities, model stand-in 200 ms)`,
  ].join('\n\n');
}
