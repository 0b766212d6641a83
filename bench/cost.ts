import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import { WORKFLOWS_PATH, workerSinks, workflowBundleOptions } from '../src/workers/create-worker';
import { agentWorkflowId } from '../src/common/ids';
import { benchToolSetup } from './cycle-script';
import { scriptedConversation } from './context-script';
import {
  PROJECT_ARMS,
  TRANSCRIPT_ARM,
  armProviders,
  firstOfferedTools,
  priceOf,
  runProjectArms,
  runTranscript,
} from './cost-arms';
import { costChart } from './cost-chart';
import { armCurve, buildCostReport, formatCostReport } from './cost-report';
import { MessagesStandIn } from './cost-stand-in';
import { progress } from './measure';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

/** What one run of the cost benchmark does and where. */
export interface CostOptions {
  turns: number;
  gapSeconds: number;
  /** Where the chart goes. */
  svg: string;
  address?: string;
  namespace: string;
}

export const COST_USAGE = `usage: node dist/bench/cost.js [--turns N] [--gap SECONDS] [--svg PATH] [--address [host:port]]
  --turns N       chat turns per arm (default 300, 10..1000)
  --gap SECONDS   simulated time between turns, the clock cache lifetimes run on (default 30)
  --svg PATH      where the chart is written (default docs/cost-curve.svg)
  --address       use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

function integerIn(flag: string, text: string | undefined, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${flag} takes an integer from ${min} to ${max}\n${COST_USAGE}`);
  }
  return value;
}

/** Parses the command line; throws with the usage text on anything it does not understand. */
export function parseCostOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CostOptions {
  const options: CostOptions = {
    turns: 300,
    gapSeconds: 30,
    svg: 'docs/cost-curve.svg',
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--turns') options.turns = integerIn(flag, argv[++index], 10, 1000);
    else if (flag === '--gap') options.gapSeconds = integerIn(flag, argv[++index], 0, 86_400);
    else if (flag === '--svg' && argv[index + 1]) options.svg = argv[++index]!;
    else if (flag === '--address') {
      const next = argv[index + 1];
      options.address = next && !next.startsWith('--') ? argv[++index] : (env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${COST_USAGE}`);
  }
  return options;
}

async function run(options: CostOptions, cleanups: Cleanup[]): Promise<boolean> {
  const turns = scriptedConversation(options.turns);
  const standIn = await MessagesStandIn.start({ turns, gapSeconds: options.gapSeconds, priceOf });
  cleanups.push(() => standIn.close());
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  const resolveModel = createModelResolver({ providers: armProviders(standIn) });
  const activities = createActivities({ resolveModel, tools: setup.tools, observations: setup.observations });
  // openTemporalTarget takes cycle-overhead's options but reads only the address and namespace.
  const target = await openTemporalTarget({ ...options, iterations: 1, runs: 1 });
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);
  progress(`bundling ${WORKFLOWS_PATH}`);
  const workflowBundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const taskQueue = `bench-cost-${process.pid}-${Date.now()}`;
  const worker = await Worker.create({
    connection: context.connection,
    namespace: target.namespace,
    taskQueue,
    workflowBundle,
    activities,
    sinks: workerSinks(),
  });
  const started = Date.now();
  const runs = await worker.runUntil(async () => {
    try {
      return await runProjectArms(context.client, taskQueue, turns);
    } finally {
      for (const arm of PROJECT_ARMS) {
        await context.client.workflow
          .getHandle(agentWorkflowId(`${taskQueue}-${arm.account}`))
          .terminate('cost benchmark finished')
          .catch(() => undefined);
      }
    }
  });
  progress(`project arms done in ${Math.round((Date.now() - started) / 1000)} s; running the anchor`);
  const anchorError = await runTranscript(standIn, turns, firstOfferedTools(standIn.calls));
  const errors = [
    ...runs.flatMap((conversation, index) =>
      conversation.error ? [`${PROJECT_ARMS[index]!.label}: ${conversation.error}`] : [],
    ),
    ...(anchorError ? [anchorError] : []),
  ];
  const report = buildCostReport({
    anchor: armCurve(TRANSCRIPT_ARM, standIn.calls, options.turns),
    arms: PROJECT_ARMS.map((arm) => armCurve(arm, standIn.calls, options.turns)),
    turns: options.turns,
    gapSeconds: options.gapSeconds,
    server: target.description,
    errors,
  });
  fs.mkdirSync(path.dirname(options.svg), { recursive: true });
  fs.writeFileSync(options.svg, costChart(report));
  console.log(formatCostReport(report));
  console.log(`chart: ${options.svg}`);
  const summary = report.arms.map(({ curve, perTurnFrom, cumulativeFrom, ratioAtLast }) => ({
    arm: curve.arm.label,
    perTurnFrom,
    cumulativeFrom,
    ratioAtLast,
    total: curve.cumulative.at(-1),
  }));
  console.log(JSON.stringify({ benchmark: 'cost', turns: options.turns, summary, pass: report.pass }));
  return report.pass;
}

if (require.main === module) runBenchmark((cleanups) => run(parseCostOptions(process.argv.slice(2)), cleanups));
