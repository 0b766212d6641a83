import type { HistoryStats, PhaseTimes } from './history-stats';
import { type Sample, formatMs, median, table } from './measure';

/** The target: agentCycle may cost at most this many times the floor per iteration. */
export const FLOOR_RATIO_TARGET = 1.5;

/** Per-iteration history size of a Temporal mode, medians over the runs. */
export interface HistorySummary {
  eventsPerIteration: number;
  bytesPerIteration: number;
  workflowTasksPerIteration: number;
  /** Encoded bytes per iteration by event type, from the median-time run. */
  bytesPerIterationByEventType: Record<string, number>;
  /** Milliseconds per iteration in each phase, from the median-time run. */
  phasesMsPerIteration: PhaseSummary;
}

/** One mode's result, per iteration. */
export interface ModeSummary {
  msPerIteration: number;
  runsMsPerIteration: number[];
  history?: HistorySummary;
}

/** Everything the benchmark prints. */
export interface BenchReport {
  iterations: number;
  runs: number;
  server: string;
  agentCycle: ModeSummary;
  inProcess: ModeSummary;
  floor: ModeSummary;
  agentCycleToInProcess: number;
  agentCycleToFloor: number;
  /** Median over rounds of agentCycle / floor within the same round (runs alternate, so load drift cancels). */
  agentCycleToFloorPaired: number;
  target: number;
  pass: boolean;
}

/** A run's phases per iteration, plus what the phases do not cover (client round trips, gaps between events). */
export type PhaseSummary = PhaseTimes & { otherMs: number };

function phasesOf(run: { ms: number; history: HistoryStats }, iterations: number): PhaseSummary {
  const { workflowTaskWaitMs, workflowTaskRunMs, activityWaitMs, activityRunMs } = run.history.phases;
  const covered = workflowTaskWaitMs + workflowTaskRunMs + activityWaitMs + activityRunMs;
  return {
    workflowTaskWaitMs: workflowTaskWaitMs / iterations,
    workflowTaskRunMs: workflowTaskRunMs / iterations,
    activityWaitMs: activityWaitMs / iterations,
    activityRunMs: activityRunMs / iterations,
    otherMs: (run.ms - covered) / iterations,
  };
}

function summarizeHistory(
  samples: readonly { ms: number; history: HistoryStats }[],
  iterations: number,
): HistorySummary {
  const medianRun = [...samples].sort((a, b) => a.ms - b.ms)[Math.floor(samples.length / 2)]!;
  const byType = Object.entries(medianRun.history.bytesByEventType).map(([type, bytes]) => [type, bytes / iterations]);
  return {
    eventsPerIteration: median(samples.map((sample) => sample.history.events)) / iterations,
    bytesPerIteration: median(samples.map((sample) => sample.history.bytes)) / iterations,
    workflowTasksPerIteration: median(samples.map((sample) => sample.history.workflowTasks)) / iterations,
    bytesPerIterationByEventType: Object.fromEntries(byType),
    phasesMsPerIteration: phasesOf(medianRun, iterations),
  };
}

/** Per-iteration summary of a mode's samples; history sizes when the samples carry them. */
export function summarize(samples: readonly (Sample & { history?: HistoryStats })[], iterations: number): ModeSummary {
  const runsMsPerIteration = samples.map((sample) => sample.ms / iterations);
  const withHistory = samples.filter((sample): sample is Sample & { history: HistoryStats } => !!sample.history);
  return {
    msPerIteration: median(runsMsPerIteration),
    runsMsPerIteration,
    ...(withHistory.length === samples.length ? { history: summarizeHistory(withHistory, iterations) } : {}),
  };
}

/** Puts the ratios and the verdict next to the three summaries. */
export function buildReport(
  settings: { iterations: number; runs: number; server: string },
  modes: { agentCycle: ModeSummary; inProcess: ModeSummary; floor: ModeSummary },
): BenchReport {
  const agentCycleToFloor = modes.agentCycle.msPerIteration / modes.floor.msPerIteration;
  const floorRuns = modes.floor.runsMsPerIteration;
  const agentCycleToFloorPaired = median(
    modes.agentCycle.runsMsPerIteration.map((ms, round) => ms / (floorRuns[round] as number)),
  );
  return {
    ...settings,
    ...modes,
    agentCycleToInProcess: modes.agentCycle.msPerIteration / modes.inProcess.msPerIteration,
    agentCycleToFloor,
    agentCycleToFloorPaired,
    target: FLOOR_RATIO_TARGET,
    pass: agentCycleToFloorPaired <= FLOOR_RATIO_TARGET,
  };
}

function modeRow(name: string, mode: ModeSummary): string[] {
  const history = mode.history;
  return [
    name,
    formatMs(mode.msPerIteration),
    mode.runsMsPerIteration.map(formatMs).join(' '),
    history ? history.eventsPerIteration.toFixed(2) : '-',
    history ? history.bytesPerIteration.toFixed(0) : '-',
    history ? history.workflowTasksPerIteration.toFixed(2) : '-',
  ];
}

function eventTypeTable(report: BenchReport): string {
  const cycle = report.agentCycle.history?.bytesPerIterationByEventType ?? {};
  const floor = report.floor.history?.bytesPerIterationByEventType ?? {};
  const types = [...new Set([...Object.keys(cycle), ...Object.keys(floor)])].sort(
    (a, b) => (cycle[b] ?? 0) - (cycle[a] ?? 0),
  );
  const rows = types.map((type) => [type, (cycle[type] ?? 0).toFixed(1), (floor[type] ?? 0).toFixed(1)]);
  return table([['history bytes per iteration, by event type', 'agentCycle', 'floor'], ...rows]);
}

const PHASE_LABELS: Record<keyof PhaseTimes, string> = {
  workflowTaskWaitMs: 'workflow task: scheduled → picked up',
  workflowTaskRunMs: 'workflow task: picked up → completed',
  activityWaitMs: 'activity: scheduled → picked up',
  activityRunMs: 'activity: picked up → completed',
};

function phaseTable(report: BenchReport): string {
  const modes = [report.agentCycle, report.floor];
  const keys = Object.keys(PHASE_LABELS) as (keyof PhaseTimes)[];
  return table([
    ['ms per iteration in the median run, from history timestamps', 'agentCycle', 'floor'],
    ...keys.map((key) => [
      PHASE_LABELS[key],
      ...modes.map((mode) => formatMs(mode.history?.phasesMsPerIteration[key] ?? 0)),
    ]),
    [
      'other (client round trips, gaps)',
      ...modes.map((mode) => formatMs(mode.history?.phasesMsPerIteration.otherMs ?? 0)),
    ],
  ]);
}

/** The human-readable report: settings, the table, the ratios with the verdict, the history breakdown. */
export function formatReport(report: BenchReport): string {
  const toolCalls = report.iterations - 1;
  const verdict = report.pass ? 'PASS' : 'FAIL';
  return [
    `cycle overhead: ${report.iterations} iterations per cycle (${toolCalls} echo tool calls, then done)`,
    `medians of ${report.runs} runs after 1 uncounted warm-up (agentCycle and floor runs interleaved); server: ${report.server}`,
    '',
    table([
      ['mode', 'ms/iteration', 'runs (ms/iteration)', 'events/iter', 'bytes/iter', 'workflow tasks/iter'],
      modeRow('agentCycle on Temporal', report.agentCycle),
      modeRow('in-process loop, no Temporal', report.inProcess),
      modeRow('floor: 2 no-op activities', report.floor),
    ]),
    '',
    `agentCycle / in-process: ${report.agentCycleToInProcess.toFixed(1)}×`,
    `agentCycle / floor:      ${report.agentCycleToFloor.toFixed(2)}× (ratio of medians)`,
    `agentCycle / floor:      ${report.agentCycleToFloorPaired.toFixed(2)}× (median of same-round ratios; target ≤ ${report.target}×) ${verdict}`,
    '',
    phaseTable(report),
    '',
    eventTypeTable(report),
  ].join('\n');
}
