// Tracing on versus off for the same agentCycle in the same run (issue 32: overhead ≤ 1.10×). On: the OpenTelemetry
// SDK this package starts from OTEL_* variables, Temporal's interceptors and the GenAI spans, exporting over OTLP/HTTP
// to a Jaeger v2 started here (scripts/ensure-jaeger.sh); off: the same worker without them.
import { Client } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import { ScriptedProvider } from '../src/activities/model/scripted';
import type { AgentCycleWorkflow } from '../src/common/workflow-types';
import { startJaeger } from '../src/dev-server/jaeger';
import { shutdownTelemetry, startTelemetry, telemetryClientInterceptors, workerTelemetry } from '../src/telemetry';
import { workerSinks, workflowBundleOptions } from '../src/workers/create-worker';
import { parseBenchOptions } from './bench-options';
import { type ToolSetup, benchScratchpad, benchToolSetup, echoScript } from './cycle-script';
import { type Mode, type Sample, formatMs, measureInterleaved, median, progress, table, timed } from './measure';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

const GOAL = 1.1;

/** A run's wall time, and the CPU this process spent on it (worker threads included; not the server's). */
interface CpuSample extends Sample {
  cpuMs: number;
}

interface Arm {
  label: string;
  client: Client;
  bundle: WorkflowBundleWithSourceMap;
  traced: boolean;
}

async function mode(arm: Arm, connection: Worker['options']['connection'], setup: ToolSetup, iterations: number) {
  const resolveModel = createModelResolver({});
  const taskQueue = `bench-tracing-${arm.traced ? 'on' : 'off'}-${process.pid}-${Date.now()}`;
  const telemetry = arm.traced ? workerTelemetry(undefined) : undefined;
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: arm.bundle,
    activities: createActivities({ resolveModel, tools: setup.tools, observations: setup.observations }),
    sinks: workerSinks(),
    plugins: telemetry?.plugins ?? [],
  });
  const runOnce = async (run: number): Promise<CpuSample> => {
    const spec = `scripted:bench-${arm.traced ? 'on' : 'off'}-${run}`;
    resolveModel.register(spec, new ScriptedProvider(echoScript(iterations), spec));
    const workflowId = `agent/bench-tracing/${taskQueue}/cycle/${run}`;
    const input = { agentId: 'bench-tracing', before: benchScratchpad(), maxIterations: iterations, model: spec };
    const cpu = process.cpuUsage();
    const { ms, value } = await timed(() =>
      arm.client.workflow.execute<AgentCycleWorkflow>('agentCycle', { taskQueue, workflowId, args: [input] }),
    );
    const used = process.cpuUsage(cpu);
    if (value.outcome !== 'completed') throw new Error(`${workflowId} ended ${value.outcome}: ${value.error ?? ''}`);
    return { ms, cpuMs: (used.user + used.system) / 1000 };
  };
  return { worker, mode: { label: arm.label, runOnce } satisfies Mode<CpuSample> };
}

async function run(cleanups: Cleanup[]): Promise<boolean> {
  const options = parseBenchOptions(process.argv.slice(2));
  const { iterations, runs } = options;
  const jaeger = await startJaeger();
  cleanups.push(() => jaeger.stop());
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.otlpEndpoint;
  process.env.OTEL_SERVICE_NAME = 'bench-tracing';
  if (!startTelemetry()) throw new Error('telemetry did not start');
  cleanups.push(() => shutdownTelemetry());
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  progress('bundling the workflows, with and without the telemetry interceptors');
  const plain = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const withInterceptors = await bundleWorkflowCode({
    ...workflowBundleOptions(),
    workflowInterceptorModules: workerTelemetry(undefined)!.workflowModules,
    logger: quietBundlerLogger,
  });
  const target = await openTemporalTarget(options);
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);
  const tracedClient = new Client({
    connection: context.client.connection,
    namespace: context.namespace,
    interceptors: { workflow: telemetryClientInterceptors() },
  });
  const off = await mode(
    { label: 'tracing off', client: context.client, bundle: plain, traced: false },
    context.connection,
    setup,
    iterations,
  );
  const on = await mode(
    { label: 'tracing on', client: tracedClient, bundle: withInterceptors, traced: true },
    context.connection,
    setup,
    iterations,
  );
  const [offSamples, onSamples] = await off.worker.runUntil(() =>
    on.worker.runUntil(() => measureInterleaved([off.mode, on.mode], runs)),
  );
  await startTelemetry()?.spanProcessor.forceFlush();
  const spans = (await jaeger.spans('bench-tracing')).length;
  const perIteration = (samples: CpuSample[], key: 'ms' | 'cpuMs' = 'ms') =>
    samples.map((sample) => sample[key] / iterations);
  const offMedian = median(perIteration(offSamples!));
  const onMedian = median(perIteration(onSamples!));
  const paired = median(onSamples!.map((sample, index) => sample.ms / offSamples![index]!.ms));
  const cpuOff = median(perIteration(offSamples!, 'cpuMs'));
  const cpuOn = median(perIteration(onSamples!, 'cpuMs'));
  const pass = paired <= GOAL;
  console.log(
    `tracing overhead: agentCycle of ${iterations} iterations (scripted model, echo tool), ${runs} runs each, interleaved`,
  );
  console.log(`server: ${target.description}; spans exported over OTLP/HTTP to Jaeger v2, ${spans} stored\n`);
  console.log(
    table([
      ['mode', 'ms/iteration (median)', 'worker CPU ms/iteration (median)', 'runs (ms/iteration)'],
      ['tracing off', formatMs(offMedian), formatMs(cpuOff), perIteration(offSamples!).map(formatMs).join(' ')],
      ['tracing on', formatMs(onMedian), formatMs(cpuOn), perIteration(onSamples!).map(formatMs).join(' ')],
    ]),
  );
  console.log(
    `\nworker CPU on / off: ${(cpuOn / cpuOff).toFixed(2)}× (medians; the SDK's own work, less sensitive to load)`,
  );
  console.log(`\non / off: ${(onMedian / offMedian).toFixed(2)}× (ratio of medians)`);
  console.log(
    `on / off: ${paired.toFixed(2)}× (median of same-round ratios; goal ≤ ${GOAL}×) ${pass ? 'PASS' : 'FAIL'}`,
  );
  return pass;
}

runBenchmark(run);
