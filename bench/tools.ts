/**
 * Per-call overhead of the tools users bring, against the built-in `echo`: a tool from code (`defineTool`) and
 * server-everything's `echo` over MCP stdio and Streamable HTTP. Measured at the activity level (`runTool` called
 * in-process) and through real cycles on a Temporal dev server, every tool in the same run, as ratios to `echo`.
 * Run after `npm run build`: node dist/bench/tools.js [--calls N] [--runs R] [--cycle-calls K] [--cycle-runs C]
 */
import * as os from 'node:os';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import { workflowBundleOptions } from '../src/workers/create-worker';
import { benchToolSetup } from './cycle-script';
import { measureInterleaved, median, progress } from './measure';
import { type Cleanup, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';
import { type ActivityTarget, activityModes, timeFirstCall } from './tools-activity';
import { measureCycles, openCycleWorker } from './tools-cycles';
import { type ToolsBenchOptions, parseToolsOptions } from './tools-options';
import { type CyclePerCall, type ToolsReport, formatToolsReport, perCall } from './tools-report';
import { openRawEchoes } from './tools-raw';
import { type BenchTools, TOOL_KINDS, startBenchTools } from './tools-setup';

/** Labels with the tool's name, as the tables show them. */
const LABELS = TOOL_KINDS.map((kind) => (kind.key === 'echo' ? kind.label : `${kind.label}: ${kind.tool}`));

async function measureActivityLevel(
  options: ToolsBenchOptions,
  cleanups: Cleanup[],
): Promise<{ report: ToolsReport['activity']; benchTools: BenchTools }> {
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  const benchTools = await startBenchTools();
  cleanups.push(() => benchTools.close());
  const resolveModel = createModelResolver({});
  const dependencies = { resolveModel, tools: setup.tools, observations: setup.observations };
  const { runTool } = createActivities({ ...dependencies, toolRegistry: benchTools.registry });
  const bare = createActivities(dependencies).runTool;

  const raw = await openRawEchoes(benchTools.httpUrl);
  cleanups.push(() => raw.http.close());
  cleanups.push(() => raw.stdio.close());

  const firstCallMs = await timeFirstCall(
    runTool,
    TOOL_KINDS.find((kind) => kind.key === 'stdio')!,
  );
  progress(`first call (stdio server started, pid ${benchTools.stdioPid()}): ${firstCallMs.toFixed(0)} ms`);
  const targets: ActivityTarget[] = TOOL_KINDS.map((kind, index) => ({
    label: LABELS[index]!,
    tool: kind.tool,
    runTool,
  }));
  const references: ActivityTarget[] = [
    { label: 'built-in echo, worker without code or MCP tools', tool: 'echo', runTool: bare },
    { label: 'MCP SDK client alone, stdio', tool: 'echo', runTool: raw.stdio.runTool },
    { label: 'MCP SDK client alone, Streamable HTTP', tool: 'echo', runTool: raw.http.runTool },
  ];
  const all = [...targets, ...references];
  const samples = await measureInterleaved(activityModes(all, options.calls), options.runs);
  const series = samples.map((runs) => runs.map((sample) => sample.ms / options.calls));
  // Every ratio is to the first target: echo on the worker with every tool.
  const figures = perCall(
    all.map((target) => target.label),
    series,
  );
  return {
    report: {
      calls: options.calls,
      runs: options.runs,
      firstCallMs,
      tools: figures.slice(0, targets.length),
      references: figures.slice(targets.length),
    },
    benchTools,
  };
}

async function measureOnTemporal(
  options: ToolsBenchOptions,
  benchTools: BenchTools,
  cleanups: Cleanup[],
): Promise<ToolsReport['cycles']> {
  const { cycleCalls: calls, cycleRuns: runs } = options;
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  progress('bundling the workflows');
  const bundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const { namespace, address } = options;
  const target = await openTemporalTarget({ iterations: calls + 1, runs, namespace, address });
  cleanups.push(() => target.stop());
  const cycleWorker = await openCycleWorker(target, bundle, setup, benchTools.registry, cleanups);
  const samples = await measureCycles(cycleWorker, TOOL_KINDS, { calls, runs });
  const tools = perCall(
    LABELS,
    samples.map((list) => list.map((sample) => sample.ms / calls)),
  );
  const toolRun = samples.map((list) => median(list.map((sample) => sample.toolRunMs / calls)));
  const withActivities: CyclePerCall[] = tools.map((each, index) => ({
    ...each,
    toolRunMsPerCall: toolRun[index]!,
    toolRunToEcho: toolRun[index]! / toolRun[0]!,
    toolWaitMsPerCall: median(samples[index]!.map((sample) => sample.toolWaitMs / calls)),
  }));
  return { server: target.description, calls, runs, tools: withActivities };
}

async function run(options: ToolsBenchOptions, cleanups: Cleanup[]): Promise<void> {
  const loadBefore = os.loadavg()[0]!;
  const { report: activity, benchTools } = await measureActivityLevel(options, cleanups);
  const cycles = options.cycleRuns > 0 ? await measureOnTemporal(options, benchTools, cleanups) : undefined;
  // Other work on the machine moves absolute figures; the interleaved ratios hold up better.
  const machine = { cores: os.cpus().length, loadAverage: [loadBefore, os.loadavg()[0]!] as [number, number] };
  const report: ToolsReport = { machine, activity, ...(cycles ? { cycles } : {}) };
  console.log(formatToolsReport(report));
  console.log(JSON.stringify({ benchmark: 'tools', ...report }));
}

/**
 * The worker's and the SDK core's warnings and errors, on stderr so that stdout holds only the report; each distinct
 * message once (a cycle repeats the same warning), with how often it came at the end.
 */
function installQuietRuntime(): () => void {
  const seen = new Map<string, number>();
  const logger = new DefaultLogger('WARN', ({ level, message }) => {
    const count = (seen.get(message) ?? 0) + 1;
    seen.set(message, count);
    if (count === 1) progress(`worker ${level}: ${message}`);
  });
  Runtime.install({ logger, telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } } });
  return () => {
    for (const [message, count] of seen) if (count > 1) progress(`worker: "${message}" ${count} times in all`);
  };
}

runBenchmark((cleanups) => run(parseToolsOptions(process.argv.slice(2)), cleanups), installQuietRuntime);
