import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver, probeDefaultModel, protocolLine } from '../src/activities/model/registry';
import { parseModelSpec } from '../src/config/model-spec';
import { DEFAULT_BUDGET_CHARS } from '../src/core/scratchpad/budget';
import { DEFAULT_OUTPUT_CAPS } from '../src/core/cycle/output-caps';
import { type LlamaServer, ensureLlamaFiles, startLlamaServer } from '../src/dev-server/llama-server';
import { WORKFLOWS_PATH, workerSinks, workflowBundleOptions } from '../src/workers/create-worker';
import { benchToolSetup } from './cycle-script';
import { ARMS, ARM_LABELS, type ArmContext, type ArmName, type ArmRun, isAgentArm, runArm } from './memory-arms';
import {
  type MemoryDataset,
  type Selection,
  datasetSize,
  loadBuiltInDataset,
  loadLongMemEval,
  selectDataset,
} from './memory-data';
import { formatMemoryReport, protocolCheck, summarise } from './memory-report';
import { progress } from './measure';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

/*
 * Memory quality (bench:memory): the same model holds a conversation four ways — the scratchpad two-phase and
 * single-phase (real agent workflows), a transcript window of the same size in characters, and no memory — then
 * answers questions about what was said, scored by string match. Plus the protocol figures: how often reflect
 * produced a valid update, parse errors per call, tokens and time per turn.
 */

export const MEMORY_USAGE = `usage: node dist/bench/memory.js [--short] [--tiny] [--sessions N] [--turns N] [--questions N]
         [--arms a,b] [--respond-tokens N] [--reflect-tokens N] [--longmemeval PATH] [--address [host:port]]
  Runs on SCRATCHPAD_MODEL (anthropic:MODEL with ANTHROPIC_API_KEY, or openai:MODEL@URL[#protocol]); with --tiny,
  --short, or no SCRATCHPAD_MODEL, on SmolLM2-135M-Instruct served by a llama-server this run starts and stops.
  --short            CI-sized, on the tiny model: 2 sessions, 3 user turns each, 4 questions; exits non-zero only
                     when the protocol figures are broken (no valid reflect update, or parse errors on over half
                     the calls), never on accuracy
  --tiny             the tiny model even when SCRATCHPAD_MODEL is set
  --sessions N       the first N sessions (LongMemEval: N per item, its evidence sessions first)
  --turns N          at most N user turns per session
  --questions N      at most N questions, spread over the types (LongMemEval: the first N items)
  --arms a,b         of ${ARMS.join(', ')} (default all)
  --respond-tokens N output cap of respond and of the direct arms' calls (default 64 tiny, else ${DEFAULT_OUTPUT_CAPS.respond})
  --reflect-tokens N output cap of reflect (default 256 tiny, else ${DEFAULT_OUTPUT_CAPS.reflect})
  --longmemeval PATH LongMemEval's published JSON (longmemeval_s.json, _m or _oracle) instead of the built-in set
  --address          use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

export interface MemoryOptions {
  short: boolean;
  tiny: boolean;
  selection: Selection;
  arms: ArmName[];
  respondTokens?: number;
  reflectTokens?: number;
  longMemEval?: string;
  address?: string;
  namespace: string;
}

function integerIn(flag: string, text: string | undefined, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${flag} takes an integer from ${min} to ${max}\n${MEMORY_USAGE}`);
  }
  return value;
}

/** Parses the command line; throws with the usage text on anything it does not understand. */
export function parseMemoryOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): MemoryOptions {
  const options: MemoryOptions = {
    short: false,
    tiny: !env.SCRATCHPAD_MODEL,
    selection: {},
    arms: [...ARMS],
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
  };
  const { selection } = options;
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--short') options.short = options.tiny = true;
    else if (flag === '--tiny') options.tiny = true;
    else if (flag === '--sessions') selection.sessions = integerIn(flag, argv[++index], 1, 10_000);
    else if (flag === '--turns') selection.turns = integerIn(flag, argv[++index], 1, 10_000);
    else if (flag === '--questions') selection.questions = integerIn(flag, argv[++index], 1, 10_000);
    else if (flag === '--respond-tokens') options.respondTokens = integerIn(flag, argv[++index], 16, 128_000);
    else if (flag === '--reflect-tokens') options.reflectTokens = integerIn(flag, argv[++index], 16, 128_000);
    else if (flag === '--arms') {
      const names = (argv[++index] ?? '').split(',').filter(Boolean);
      const unknown = names.filter((name) => !(ARMS as readonly string[]).includes(name));
      if (names.length === 0 || unknown.length > 0) {
        throw new Error(
          `--arms: ${unknown.join(', ') || 'none given'}; choose from ${ARMS.join(', ')}\n${MEMORY_USAGE}`,
        );
      }
      // In the report's order, each once.
      options.arms = ARMS.filter((arm) => names.includes(arm));
    } else if (flag === '--longmemeval' && argv[index + 1]) options.longMemEval = argv[++index];
    else if (flag === '--address') {
      const next = argv[index + 1];
      options.address = next && !next.startsWith('--') ? argv[++index] : (env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${MEMORY_USAGE}`);
  }
  if (options.short) {
    selection.sessions ??= 2;
    selection.turns ??= 3;
    selection.questions ??= 4;
  }
  return options;
}

/** The model the arms share, and how the report names it. */
interface ModelChoice {
  spec: string;
  label: string;
  tiny: boolean;
  server?: LlamaServer;
}

/** The tiny model on a llama-server started here (built and downloaded on first use), or SCRATCHPAD_MODEL. */
async function chooseModel(options: MemoryOptions, cleanups: Cleanup[]): Promise<ModelChoice> {
  if (!options.tiny) {
    const spec = process.env.SCRATCHPAD_MODEL!;
    const parsed = parseModelSpec(spec);
    if (parsed.provider === 'anthropic' && !process.env.ANTHROPIC_API_KEY) {
      throw new Error(`SCRATCHPAD_MODEL=${spec} needs ANTHROPIC_API_KEY`);
    }
    if (parsed.provider === 'scripted') throw new Error('a scripted model has no memory to measure: name a real one');
    return { spec, label: spec, tiny: false };
  }
  progress('provisioning llama-server and SmolLM2-135M-Instruct (a first build takes about 10 minutes)');
  const files = await ensureLlamaFiles((line) => progress(line));
  // SmolLM2 was trained on 8,192 tokens: room for a full scratchpad, reflect's schema and the reply.
  const server = await startLlamaServer({ files, contextSize: 8192 });
  cleanups.push(() => server.stop());
  progress(`llama-server ${server.url} (pid ${server.pid}) serving ${files.model}`);
  const spec = `openai:smollm2@${server.baseURL}`;
  return {
    spec,
    label: `${spec} (SmolLM2-135M-Instruct Q8_0 on llama.cpp's llama-server, started by this run)`,
    tiny: true,
    server,
  };
}

const WATCH_MS = 15_000;
const WATCH_FAILURES = 4;

/**
 * Rejects once the llama-server this run started stops answering `/health` (it exited, or hangs shutting down),
 * so the run ends with its log instead of waiting out activity timeouts and retries.
 */
function watchServer(server: LlamaServer, cleanups: Cleanup[]): Promise<never> {
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const dead = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      void fetch(`${server.url}/health`, { signal: AbortSignal.timeout(WATCH_MS / 2) })
        .then(
          (response) => response.ok,
          () => false,
        )
        .then((healthy) => {
          failures = healthy ? 0 : failures + 1;
          if (failures < WATCH_FAILURES) return;
          clearInterval(timer);
          const log = server.log().slice(-1500);
          reject(new Error(`llama-server (pid ${server.pid}) stopped answering /health; its log ends:\n${log}`));
        });
    }, WATCH_MS);
  });
  cleanups.push(() => clearInterval(timer));
  dead.catch(() => undefined);
  return dead;
}

function loadDataset(options: MemoryOptions): MemoryDataset {
  const dataset = options.longMemEval ? loadLongMemEval(options.longMemEval) : loadBuiltInDataset();
  return selectDataset(dataset, options.selection);
}

/** Every arm over every conversation, each run added to `runs` as it ends, so a run stopped midway keeps them. */
async function runArms(
  context: ArmContext,
  dataset: MemoryDataset,
  arms: readonly ArmName[],
  runs: ArmRun[],
): Promise<void> {
  for (const [index, conversation] of dataset.conversations.entries()) {
    if (dataset.conversations.length > 1) progress(`conversation ${index + 1}/${dataset.conversations.length}`);
    for (const arm of arms) {
      context.signal?.throwIfAborted();
      progress(`${ARM_LABELS[arm]}: ${conversation.id}`);
      runs.push(await runArm(context, arm, conversation));
    }
  }
}

async function run(options: MemoryOptions, cleanups: Cleanup[]): Promise<boolean> {
  // The data first: a wrong file fails before anything is built or started.
  const dataset = loadDataset(options);
  const size = datasetSize(dataset);
  const model = await chooseModel(options, cleanups);
  const caps = {
    respond: options.respondTokens ?? (model.tiny ? 64 : DEFAULT_OUTPUT_CAPS.respond),
    reflect: options.reflectTokens ?? (model.tiny ? 256 : DEFAULT_OUTPUT_CAPS.reflect),
  };
  let protocol = '';
  const resolveModel = createModelResolver({
    defaultSpec: model.spec,
    anthropicApiKey: process.env.ANTHROPIC_API_KEY,
    anthropicBaseURL: process.env.ANTHROPIC_BASE_URL,
    openaiApiKey: process.env.OPENAI_API_KEY,
    onProtocol: (spec, chosen, why) => {
      protocol = chosen;
      progress(protocolLine(spec, chosen, why));
    },
  });
  await probeDefaultModel(resolveModel, (line) => progress(line));
  const provider = resolveModel();
  const taskQueue = `bench-memory-${process.pid}-${Date.now()}`;
  const stop = new AbortController();
  const context: ArmContext = {
    taskQueue,
    provider,
    caps,
    budgetChars: DEFAULT_BUDGET_CHARS,
    runTag: `${process.pid}-${Date.now()}`,
    signal: stop.signal,
  };
  const watched = model.server ? [watchServer(model.server, cleanups)] : [];
  let server = 'none (no agent arm)';
  const runs: ArmRun[] = [];
  let stopped: unknown;
  const started = Date.now();
  try {
    if (options.arms.some(isAgentArm)) {
      const setup = benchToolSetup();
      cleanups.push(() => setup.close());
      const target = await openTemporalTarget({ ...options, iterations: 1, runs: 1 });
      cleanups.push(() => target.stop());
      server = target.description;
      const temporal = await connectTarget(target, cleanups);
      progress(`bundling ${WORKFLOWS_PATH}`);
      const workflowBundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
      const worker = await Worker.create({
        connection: temporal.connection,
        namespace: target.namespace,
        taskQueue,
        workflowBundle,
        activities: createActivities({ resolveModel, tools: setup.tools, observations: setup.observations }),
        sinks: workerSinks(),
      });
      context.client = temporal.client;
      await worker.runUntil(Promise.race([runArms(context, dataset, options.arms, runs), ...watched]));
    } else {
      await Promise.race([runArms(context, dataset, options.arms, runs), ...watched]);
    }
  } catch (error) {
    // A signal (the worker shut down), the model server gone: report the arms that finished, then fail.
    stopped =
      (error as Error | undefined)?.name === 'PromiseCompletionTimeoutError'
        ? new Error('the worker shut down: a SIGINT or SIGTERM reached this process', { cause: error })
        : error;
    stop.abort(stopped);
    if (runs.length === 0) throw stopped;
    progress(`stopped: ${stopped instanceof Error ? stopped.message : String(stopped)}`);
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const finished = options.arms.filter((arm) => runs.some((one) => one.arm === arm));
  const summaries = finished.map((arm) =>
    summarise(
      arm,
      runs.filter((one) => one.arm === arm),
    ),
  );
  const check = protocolCheck(summaries);
  const asked = provider.protocol ?? protocol;
  console.log(
    `Memory quality: ${dataset.name} (${dataset.source}): ${size.sessions} sessions, ${size.turns} user turns, ` +
      `${size.questions} questions${options.short ? ' (--short)' : ''}`,
  );
  console.log(`model: ${model.label}${asked ? `, asked for calls in #${asked}` : ''}`);
  console.log(
    `output caps: respond ${caps.respond}, reflect ${caps.reflect} tokens; scratchpad budget and transcript window: ` +
      `${context.budgetChars} characters; no work tools offered; questions to the agent arms go to a fork of the ` +
      `memory the sessions left, one per question`,
  );
  console.log(`Temporal: ${server}; ${minutes} minutes\n`);
  if (stopped) {
    const why = stopped instanceof Error ? stopped.message.split('\n')[0] : String(stopped);
    console.log(`INCOMPLETE: the run stopped (${why}); only the arms that finished are reported.\n`);
  }
  console.log(formatMemoryReport(summaries));
  const verdict = !options.arms.some(isAgentArm)
    ? 'not applicable (no agent arm ran)'
    : check.pass
      ? 'pass'
      : `FAIL: ${check.problems.join('; ')}`;
  console.log(`\nProtocol check${options.short ? ' (decides the exit status)' : ''}: ${verdict}`);
  const summary = summaries.map(({ errors: _errors, ...figures }) => figures);
  console.log(
    JSON.stringify({
      benchmark: 'memory',
      model: model.spec,
      protocol: asked || undefined,
      dataset: dataset.source,
      size,
      caps,
      arms: summary,
      protocolCheck: check,
    }),
  );
  if (stopped) throw stopped;
  return options.short ? check.pass : true;
}

if (require.main === module) runBenchmark((cleanups) => run(parseMemoryOptions(process.argv.slice(2)), cleanups));
