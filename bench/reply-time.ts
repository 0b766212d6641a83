import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import type { ModelProvider, ProviderRequest } from '../src/activities/model/provider';
import { createModelResolver } from '../src/activities/model/registry';
import { Agents } from '../src/clients/agents';
import type { ModelResponse } from '../src/core/cycle/model';
import { ZERO_USAGE } from '../src/core/cycle/model';
import { agentWorkflowId } from '../src/common/ids';
import { workerSinks, workflowBundleOptions } from '../src/workers/create-worker';
import { benchToolSetup } from './cycle-script';
import { formatMs, median, progress, table, timed } from './measure';
import { REPLY_PATH_LABELS, type ReplyPath, replyPath } from './reply-path';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

/*
 * Time to reply (issue 22): a chat turn against a model that answers after a fixed delay, from `send` to the reply,
 * against one call to that model, in the same run. Respond and reflect each take one call; before the reply came
 * first, `send` waited for both (about 2×). Goal: at most 1.15×.
 */

const USAGE = `usage: node dist/bench/reply-time.js [--runs R] [--delay MS[,MS…]] [--address [host:port]]
  --runs R      measured chat turns per delay; medians are reported (default 7); one warm-up turn is not counted
  --delay MS    how long the model takes to answer each call; several, comma-separated (default 500,2000)
  --address     use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

interface Options {
  runs: number;
  delays: number[];
  address?: string;
  namespace: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { runs: 7, delays: [500, 2000], namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' };
  const integer = (flag: string, text: string | undefined, min: number, max: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${flag}: ${min} to ${max}\n${USAGE}`);
    return value;
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--runs') options.runs = integer(flag, argv[++index], 1, 1000);
    else if (flag === '--delay') {
      options.delays = (argv[++index] ?? '').split(',').map((text) => integer(flag, text, 1, 60_000));
    } else if (flag === '--address') {
      const next = argv[index + 1];
      options.address =
        next && !next.startsWith('--') ? argv[++index] : (process.env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${USAGE}`);
  }
  return options;
}

/** A model that answers every call after `delayMs`: respond with text, reflect with a small scratchpad update. */
class DelayedModel implements ModelProvider {
  readonly spec = 'scripted:delayed';
  delayMs = 0;
  private calls = 0;

  async complete(request: ProviderRequest): Promise<ModelResponse> {
    await sleep(this.delayMs);
    const call = ++this.calls;
    const usage = { ...ZERO_USAGE, inputTokens: 1000, outputTokens: 50 };
    if (request.system !== 'reflect') {
      return { text: `Reply ${call}.`, toolCalls: [], stopReason: 'end_turn', usage, model: this.spec };
    }
    const toolCalls = [{ id: `call_${call}`, name: 'update_scratchpad', input: { trajectory_now: `Turn ${call}` } }];
    return { text: '', toolCalls, stopReason: 'tool_use', usage, model: this.spec };
  }
}

/** The medians, in milliseconds, of one delay's turns. */
interface Measured {
  delayMs: number;
  callMs: number;
  replyMs: number;
  cycleMs: number;
  /** Each segment's median over the turns. */
  path: ReplyPath;
}

type Context = Awaited<ReturnType<typeof connectTarget>>;

/** One warm-up and `runs` counted turns of one agent with the model at `delayMs`; medians. */
async function measure(context: Context, model: DelayedModel, taskQueue: string, delayMs: number, runs: number) {
  model.delayMs = delayMs;
  const agents = new Agents(context.client);
  const agent = { agentId: `bench-reply-${delayMs}-${process.pid}-${Date.now()}`, taskQueue };
  const probe: ProviderRequest = { system: 'respond', messages: [], tools: [], toolChoice: 'auto', maxTokens: 100 };
  const samples = { call: [] as number[], reply: [] as number[], cycle: [] as number[], paths: [] as ReplyPath[] };
  for (let index = 0; index <= runs; index++) {
    const call = (await timed(() => model.complete(probe))).ms;
    const start = performance.now();
    const answer = await agents.send(agent, { message: `Message ${index}` });
    const reply = performance.now() - start;
    // The next turn starts once this one has reflected, so no turn waits behind another.
    await context.client.workflow.getHandle(answer.cycleId).result();
    const cycle = performance.now() - start;
    const label = index === 0 ? 'warm-up' : `${index}/${runs}`;
    progress(`${delayMs} ms model, turn ${label}: reply ${formatMs(reply)} ms, cycle ${formatMs(cycle)} ms`);
    if (index === 0) continue;
    samples.call.push(call);
    samples.reply.push(reply);
    samples.cycle.push(cycle);
    samples.paths.push(await replyPath(context.client, agentWorkflowId(agent.agentId), answer.cycleId, index, reply));
  }
  await context.client.workflow.getHandle(agentWorkflowId(agent.agentId)).terminate();
  const keys = Object.keys(REPLY_PATH_LABELS) as (keyof ReplyPath)[];
  const medians = keys.map((key) => [key, median(samples.paths.map((one) => one[key]))]);
  const path = Object.fromEntries(medians) as unknown as ReplyPath;
  const [callMs, replyMs, cycleMs] = [median(samples.call), median(samples.reply), median(samples.cycle)];
  return { delayMs, callMs, replyMs, cycleMs, path };
}

async function run(options: Options, cleanups: Cleanup[]): Promise<void> {
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  progress('bundling the workflows');
  const workflowBundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const target = await openTemporalTarget({ ...options, iterations: 1 });
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);
  const model = new DelayedModel();
  const taskQueue = `bench-reply-${process.pid}-${Date.now()}`;
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
  const results: Measured[] = await worker.runUntil(async () => {
    const measured: Measured[] = [];
    for (const delayMs of options.delays)
      measured.push(await measure(context, model, taskQueue, delayMs, options.runs));
    return measured;
  });

  const ratio = (ms: number, call: number) => `${(ms / call).toFixed(2)}×`;
  console.log(`Time to reply: a chat turn against a model that answers after a fixed delay; ${options.runs} turns`);
  console.log(`each, medians; server: ${target.description}\n`);
  console.log(
    table([
      ['model delay', 'one call ms', 'send → reply ms', 'reply / call', 'send → cycle end ms', 'cycle end / call'],
      ...results.map((result) => [
        `${result.delayMs} ms`,
        formatMs(result.callMs),
        formatMs(result.replyMs),
        ratio(result.replyMs, result.callMs),
        formatMs(result.cycleMs),
        ratio(result.cycleMs, result.callMs),
      ]),
    ]),
  );
  const keys = Object.keys(REPLY_PATH_LABELS) as (keyof ReplyPath)[];
  console.log('\nWhere send → reply went (ms, medians over the turns, from history timestamps):\n');
  console.log(
    table([
      ['segment', ...results.map((result) => `${result.delayMs} ms model`)],
      ...keys.map((key) => [REPLY_PATH_LABELS[key], ...results.map((result) => formatMs(result.path[key]))]),
    ]),
  );
  const met = results.every((result) => result.replyMs / result.callMs <= 1.15);
  console.log(
    '\nsend → cycle end (respond + reflect) is what `send` waited for before the reply came first.' +
      `\nGoal: send → reply ≤ 1.15× one model call: ${met ? 'met' : 'not met'} at every delay.`,
  );
  const report = results.map((result) => ({ ...result, ratio: result.replyMs / result.callMs }));
  console.log(JSON.stringify({ benchmark: 'reply-time', runs: options.runs, results: report }));
}

runBenchmark((cleanups) => run(parseOptions(process.argv.slice(2)), cleanups));
