import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../src/workers/create-worker';
import { type BenchOptions, parseBenchOptions } from './bench-options';
import { benchToolSetup } from './cycle-script';
import { timeInProcessCycle } from './in-process-cycle';
import { measureRuns, progress } from './measure';
import { buildReport, formatReport, summarize } from './report';
import { measureTemporalModes } from './temporal-runs';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

const FLOOR = require.resolve('./floor-workflow');

async function bundle(options: { workflowsPath: string; preloadModules: string[] }) {
  progress(`bundling ${options.workflowsPath}`);
  return bundleWorkflowCode({ ...options, logger: quietBundlerLogger });
}

async function run(options: BenchOptions, cleanups: Cleanup[]): Promise<void> {
  const { iterations, runs } = options;
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  const inProcess = await measureRuns(
    { label: 'in-process', runOnce: () => timeInProcessCycle(iterations, setup) },
    runs,
  );

  const bundles = {
    agentCycle: await bundle(workflowBundleOptions()),
    // Both shapes share their modules among executions alike.
    floor: await bundle({ workflowsPath: FLOOR, preloadModules: [FLOOR] }),
  };
  const target = await openTemporalTarget(options);
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);

  const { agentCycle, floor } = await measureTemporalModes(context, bundles, setup, { iterations, runs });

  const report = buildReport(
    { iterations, runs, server: target.description },
    {
      agentCycle: summarize(agentCycle, iterations),
      inProcess: summarize(inProcess, iterations),
      floor: summarize(floor, iterations),
    },
  );
  console.log(formatReport(report));
  console.log(JSON.stringify({ benchmark: 'cycle-overhead', ...report }));
}

runBenchmark((cleanups) => run(parseBenchOptions(process.argv.slice(2)), cleanups));
