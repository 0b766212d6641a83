import { formatMs, median, table } from './measure';

/** One tool's cost per call over the runs, and its ratios to the built-in `echo` measured in the same rounds. */
export interface PerCall {
  label: string;
  msPerCall: number;
  runsMsPerCall: number[];
  /** Median ms per call over echo's. */
  toEcho: number;
  /** Median over rounds of ms per call over echo's in the same round (runs interleave, so load drift cancels). */
  toEchoPaired: number;
}

/** A cycle tool's figures besides the cycle's wall time: its `runTool` activities, from history timestamps. */
export interface CyclePerCall extends PerCall {
  /** `runTool` picked up → completed, per call. */
  toolRunMsPerCall: number;
  toolRunToEcho: number;
  /** `runTool` scheduled → picked up, per call. */
  toolWaitMsPerCall: number;
}

/** Per-call figures of each series (ms per call, one value per run); the first series is echo, the baseline. */
export function perCall(labels: readonly string[], series: readonly number[][]): PerCall[] {
  const echo = series[0]!;
  const echoMedian = median(echo);
  return series.map((runs, index) => ({
    label: labels[index]!,
    msPerCall: median(runs),
    runsMsPerCall: runs,
    toEcho: median(runs) / echoMedian,
    toEchoPaired: median(runs.map((ms, round) => ms / echo[round]!)),
  }));
}

/** Everything the tools benchmark prints. */
export interface ToolsReport {
  /** CPU count, and the 1-minute load average when the benchmark started and when it ended. */
  machine: { cores: number; loadAverage: [number, number] };
  activity: {
    calls: number;
    runs: number;
    /** The first call of a fresh worker: it starts the stdio server and lists both servers. */
    firstCallMs: number;
    tools: PerCall[];
    /** For comparison, against the same echo: echo on a worker with no code or MCP tools; the bare MCP SDK client. */
    references: PerCall[];
  };
  cycles?: {
    server: string;
    calls: number;
    runs: number;
    tools: CyclePerCall[];
  };
}

function ratio(value: number): string {
  return `${value.toFixed(2)}×`;
}

function activityTable(report: ToolsReport['activity']): string {
  const row = (each: PerCall) => [
    each.label,
    formatMs(each.msPerCall),
    each.runsMsPerCall.map(formatMs).join(' '),
    ratio(each.toEcho),
    ratio(each.toEchoPaired),
  ];
  return table([
    ['tool', 'ms/call', 'runs (ms/call)', '× echo', '× echo, same round'],
    ...report.tools.map(row),
    ...report.references.map((each) => row({ ...each, label: `${each.label} (reference)` })),
  ]);
}

function cycleTable(cycles: NonNullable<ToolsReport['cycles']>): string {
  return table([
    [
      'tool',
      'ms/call',
      'runs (ms/call)',
      '× echo',
      '× echo, same round',
      'runTool run ms/call',
      '× echo',
      'wait ms/call',
    ],
    ...cycles.tools.map((each) => [
      each.label,
      formatMs(each.msPerCall),
      each.runsMsPerCall.map(formatMs).join(' '),
      ratio(each.toEcho),
      ratio(each.toEchoPaired),
      formatMs(each.toolRunMsPerCall),
      ratio(each.toolRunToEcho),
      formatMs(each.toolWaitMsPerCall),
    ]),
  ]);
}

/** `code tool 1.02× echo, MCP stdio 3.10×, MCP HTTP 4.40×`, with ms per call. */
function summaryLine(tools: readonly PerCall[]): string {
  const [echo, code, stdio, http] = tools;
  const part = (name: string, each: PerCall | undefined) =>
    each ? `${name} ${ratio(each.toEchoPaired)} echo (${formatMs(each.msPerCall)} ms)` : '';
  return [
    `echo ${formatMs(echo!.msPerCall)} ms/call`,
    part('code tool', code),
    part('MCP stdio', stdio),
    part('MCP HTTP', http),
  ].join(', ');
}

/** The human-readable report: how each level was measured, its table, and one summary line per level. */
export function formatToolsReport(report: ToolsReport): string {
  const { activity, cycles } = report;
  const lines = [
    'tools: per-call overhead of a tool from code and of an MCP tool (stdio, Streamable HTTP) against the built-in echo',
    'one worker with every tool: echo, bench_echo (defineTool), server-everything over stdio and over HTTP on loopback; observations in SQLite',
    `machine: ${report.machine.cores} cores, load average ${report.machine.loadAverage.map((load) => load.toFixed(2)).join(' at start, ')} at end`,
    '',
    `activity level: createActivities(…).runTool(call) in-process, no Temporal; ${activity.calls} calls per run, one at a time`,
    `medians of ${activity.runs} runs after 1 uncounted warm-up (tools interleaved); ratios to echo on the same worker`,
    `first call of the worker (starts the stdio server, connects over HTTP, lists both): ${formatMs(activity.firstCallMs)} ms`,
    '',
    activityTable(activity),
    '',
    `activity level: ${summaryLine(activity.tools)} (same-round ratios)`,
  ];
  if (!cycles) return [...lines, '', 'on Temporal: skipped (--cycle-runs 0)'].join('\n');
  return [
    ...lines,
    '',
    `on Temporal: agentCycle of ${cycles.calls} calls of one tool then done, scripted zero-latency model; server: ${cycles.server}`,
    `medians of ${cycles.runs} cycles per tool after 1 uncounted warm-up (tools interleaved); ms/call = cycle wall time / ${cycles.calls}`,
    '(each call is one model turn and one runTool activity); runTool run/wait from history timestamps, per call',
    '',
    cycleTable(cycles),
    '',
    `on Temporal: ${summaryLine(cycles.tools)} (same-round ratios of cycle time)`,
  ].join('\n');
}
