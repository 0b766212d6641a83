import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import type { ModelProvider, ProviderRequest } from '../src/activities/model/provider';
import { createModelResolver } from '../src/activities/model/registry';
import { Agents } from '../src/clients/agents';
import type { ModelResponse } from '../src/core/cycle/model';
import { ZERO_USAGE } from '../src/core/cycle/model';
import { startConsole } from '../src/console/server';
import { workerSinks, workflowBundleOptions } from '../src/workers/create-worker';
import { benchToolSetup } from './cycle-script';
import { formatMs, median, progress, table } from './measure';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

/*
 * The console on a large agent (issue 33): the agent page and a cycle page of an agent with 1,000 cycles, against
 * the same pages of an agent with 10, in the same run. Goal: each page of the large agent in at most 1 s.
 */

const USAGE = `usage: node dist/bench/console.js [--cycles N] [--runs R] [--address [host:port]]
  --cycles N   cycles of the large agent (default 1000); the small one has 10
  --runs R     page loads measured per page; medians are reported (default 7)
  --address    use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

interface Options {
  cycles: number;
  runs: number;
  address?: string;
  namespace: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { cycles: 1000, runs: 7, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' };
  const integer = (flag: string, text: string | undefined, min: number, max: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${flag}: ${min} to ${max}\n${USAGE}`);
    return value;
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--cycles') options.cycles = integer(flag, argv[++index], 10, 100_000);
    else if (flag === '--runs') options.runs = integer(flag, argv[++index], 1, 1000);
    else if (flag === '--address') {
      const next = argv[index + 1];
      options.address =
        next && !next.startsWith('--') ? argv[++index] : (process.env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${USAGE}`);
  }
  return options;
}

/** Answers at once: respond with a reply, reflect with one line more of Known. */
class InstantModel implements ModelProvider {
  readonly spec = 'scripted:instant';
  private calls = 0;

  async complete(request: ProviderRequest): Promise<ModelResponse> {
    const call = ++this.calls;
    const usage = { ...ZERO_USAGE, inputTokens: 800, outputTokens: 40 };
    if (request.system !== 'reflect') {
      return { text: `Reply ${call}.`, toolCalls: [], stopReason: 'end_turn', usage, model: this.spec };
    }
    const input = { understanding_known: `APPEND: fact ${call}`, trajectory_now: `Turn ${call}` };
    const toolCalls = [{ id: `call_${call}`, name: 'update_scratchpad', input }];
    return { text: '', toolCalls, stopReason: 'tool_use', usage, model: this.spec };
  }
}

async function load(url: string, cookie: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${text.slice(0, 300)}`);
  return performance.now() - start;
}

async function run(options: Options, cleanups: Cleanup[]): Promise<void> {
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  progress('bundling the workflows');
  const workflowBundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const target = await openTemporalTarget({ ...options, iterations: 1 });
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);
  const model = new InstantModel();
  const taskQueue = `bench-console-${process.pid}-${Date.now()}`;
  const worker = await Worker.create({
    connection: context.connection,
    namespace: context.namespace,
    taskQueue,
    workflowBundle,
    activities: createActivities({
      resolveModel: createModelResolver({ defaultSpec: model.spec, providers: { [model.spec]: model } }),
      tools: setup.tools,
      observations: setup.observations,
    }),
    sinks: workerSinks(),
  });
  const agents = new Agents(context.client);
  const small = { agentId: `bench-console-small-${process.pid}`, taskQueue };
  const large = { agentId: `bench-console-large-${process.pid}`, taskQueue };
  await worker.runUntil(async () => {
    for (const [agent, count] of [
      [small, 10],
      [large, options.cycles],
    ] as const) {
      for (let n = 1; n <= count; n++) {
        const answer = await agents.send(agent, { message: `Message ${n}` });
        await agents.waitForCycle(agent, answer.cycleId);
        if (n % 100 === 0 || n === count) progress(`${agent.agentId}: ${n}/${count} cycles`);
      }
    }
  });
  // Read with no worker running, as a person browsing history would.
  const console_ = await startConsole({ client: context.client, token: 'bench' });
  cleanups.push(() => console_.close());
  const base = new URL(console_.url);
  const cookie = `scratchpad_console_${base.port}=bench`;
  const page = (path: string) => `http://${base.host}${path}`;
  const pages = [
    ['agent page', small, `/agents/${small.agentId}`, `/agents/${large.agentId}`],
    [
      'cycle page',
      small,
      `/agents/${small.agentId}/cycles/5`,
      `/agents/${large.agentId}/cycles/${Math.ceil(options.cycles / 2)}`,
    ],
  ] as const;
  const rows: string[][] = [];
  const results = [];
  for (const [name, , smallPath, largePath] of pages) {
    const timesSmall: number[] = [];
    const timesLarge: number[] = [];
    for (let index = 0; index <= options.runs; index++) {
      const [a, b] = [await load(page(smallPath), cookie), await load(page(largePath), cookie)];
      if (index === 0) continue; // warm-up
      timesSmall.push(a);
      timesLarge.push(b);
    }
    const [smallMs, largeMs] = [median(timesSmall), median(timesLarge)];
    rows.push([name, formatMs(smallMs), formatMs(largeMs), `${(largeMs / smallMs).toFixed(2)}×`]);
    results.push({ page: name, smallMs, largeMs, ratio: largeMs / smallMs });
  }
  console.log(
    `Console pages with no worker running; medians of ${options.runs} loads; server: ${target.description}\n`,
  );
  console.log(table([['page', '10 cycles ms', `${options.cycles} cycles ms`, 'ratio'], ...rows]));
  const met = results.every((result) => result.largeMs <= 1000);
  console.log(`\nGoal: each page of the ${options.cycles}-cycle agent in at most 1 s: ${met ? 'met' : 'not met'}.`);
  console.log(JSON.stringify({ benchmark: 'console', cycles: options.cycles, runs: options.runs, results }));
}

runBenchmark((cleanups) => run(parseOptions(process.argv.slice(2)), cleanups));
