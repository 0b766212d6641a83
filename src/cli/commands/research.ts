import { ResearchRuns, type ResearchRunSummary } from '../../client';
import { describeIssues } from '../../common/workflow-input';
import {
  type ResearchInput,
  ResearchInputSchema,
  type ResearchResult,
  type ResearchUsage,
} from '../../core/research/run';
import { entryLine, strategyLines } from '../../core/research/render';
import { researchWorkflowId } from '../../common/ids';
import type { Config } from '../../config';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

/** The options of `scratchpad research start`, as commander parses them. */
export interface ResearchStartOptions {
  entities?: string;
  fields?: string;
  /** `field=name,name`, once per field. */
  alias?: string[];
  maxWorkers?: number;
  model?: string;
  workerModel?: string;
  runId?: string;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

function splitList(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

/** `research start`: starts a run and prints entries as they land, then the answer and its citations. */
export async function researchStartCommand(question: string, options: ResearchStartOptions): Promise<number> {
  const config = runtime.config();
  const input = researchInput(question, options, config);
  const spec = runtime.modelSpec(config, options.model ?? options.workerModel);
  if (options.workerModel) runtime.modelSpec(config, options.workerModel);
  const client = await runtime.client(config);
  const workflowId = researchWorkflowId(input.runId);
  const runs = new ResearchRuns(client);
  const models = input.workerModel ? [input.workerModel] : [];
  return runtime.withWorker(client, config, spec, workflowId, () => startAndFollow(runs, config, input), { models });
}

/** The run's input, checked here so a bad flag is a usage error rather than a workflow that cannot start. */
function researchInput(question: string, options: ResearchStartOptions, config: Config): ResearchInput {
  const entities = splitList(options.entities);
  const fields = splitList(options.fields);
  const workerModel = options.workerModel ?? options.model;
  const aliases = aliasOptions(options.alias);
  const input: ResearchInput = {
    runId: options.runId !== undefined ? ResearchRuns.runIdOf(options.runId) : `run-${Date.now().toString(36)}`,
    question,
    // A list left out is planned from the question by the supervisor's model.
    ...(entities && { entities }),
    ...(fields && { fields }),
    ...(aliases && { aliases }),
    ...(options.maxWorkers && { maxWorkers: options.maxWorkers }),
    ...(options.model && { model: options.model }),
    ...(workerModel && { workerModel }),
    ...(config.SCRATCHPAD_BOARD && { mirror: config.SCRATCHPAD_BOARD }),
  };
  const parsed = ResearchInputSchema().safeParse(input);
  if (!parsed.success) throw new CliError(`invalid research run: ${describeIssues(parsed.error)}`, EXIT.usage);
  return input;
}

/** `--alias revenue=turnover,sales`, repeated: the aliases by field; a value without `=` is a usage error. */
function aliasOptions(values: readonly string[] | undefined): Record<string, string[]> | undefined {
  if (!values || values.length === 0) return undefined;
  const aliases: Record<string, string[]> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const names = splitList(value.slice(at + 1));
    if (at <= 0 || !names) throw new CliError(`--alias ${value}: expected field=name,name`, EXIT.usage);
    const field = value.slice(0, at).trim();
    aliases[field] = [...(aliases[field] ?? []), ...names];
  }
  return aliases;
}

/** Starts the run, prints its entries as they land, then the answer or what is missing; resolves to the exit code. */
export async function startAndFollow(runs: ResearchRuns, config: Config, input: ResearchInput): Promise<number> {
  await runs.start(input, { taskQueue: config.SCRATCHPAD_TASK_QUEUE });
  const workflowId = researchWorkflowId(input.runId);
  out(`research ${input.runId} started (${workflowId})`);
  if (!input.entities || !input.fields) out(`planning: the supervisor's model turns the question into STRATEGY`);
  const result = await runs.follow(input.runId, (entry) => [entryLine(entry), ...strategyLines(entry)].forEach(out));
  return printResult(result, workflowId);
}

function printResult(result: ResearchResult, workflowId: string): number {
  out('');
  if (result.usage) out(usageLine(result.usage));
  if (result.outcome === 'complete') {
    out(`Answer (${workflowId}), citing VERIFIED entries ${result.citations.join(', ')}:`);
    out(result.answer ?? '');
    return EXIT.ok;
  }
  out(`Incomplete: no answer over unverified facts. Missing:`);
  for (const line of result.missing) out(`- ${line}`);
  return EXIT.incomplete;
}

/** The workers' model usage, their sub-agents included. */
function usageLine({ usage, costUsd }: ResearchUsage): string {
  const cost = costUsd === null ? 'cost unknown (a model without a known price)' : `$${costUsd.toFixed(4)}`;
  return `Workers used ${usage.inputTokens} input and ${usage.outputTokens} output tokens, ${cost}.`;
}

/** The run `id` names (with or without `research/`), or a CliError saying there is none and how to find one. */
async function existingRun(runs: ResearchRuns, id: string): Promise<ResearchRunSummary> {
  const run = await runs.describe(id);
  if (!run) {
    throw new CliError(
      `no such research run: ${ResearchRuns.runIdOf(id)} (\`scratchpad research list --all\` lists every run)`,
    );
  }
  return run;
}

/** `research board RUN`: the board, one line per entry, or JSON. */
export async function researchBoardCommand(runId: string, options: { json?: boolean }): Promise<number> {
  const runs = new ResearchRuns(await runtime.client(runtime.config()));
  await existingRun(runs, runId);
  const board = await runs.board(runId);
  out(options.json ? JSON.stringify(board, null, 2) : board.map(entryLine).join('\n'));
  return EXIT.ok;
}

/** Why a directive cannot reach a run that has ended, and what to do instead. */
function finishedRun(run: ResearchRunSummary): CliError {
  const outcome = run.outcome ? `, outcome ${run.outcome}` : '';
  return new CliError(
    `research run ${run.runId} has finished (${run.status}${outcome}): directives reach running runs only; ` +
      `start a new run with \`scratchpad research start\``,
  );
}

/** `research directive RUN TEXT`: a USER_DIRECTIVE, read into STRATEGY at the supervisor's next evaluation. */
export async function researchDirectiveCommand(runId: string, text: string): Promise<number> {
  if (text.trim() === '' || text.length > 2000) throw new CliError('a directive is 1-2000 characters', EXIT.usage);
  const runs = new ResearchRuns(await runtime.client(runtime.config()));
  const run = await existingRun(runs, runId);
  if (run.status !== 'RUNNING') throw finishedRun(run);
  try {
    await runs.directive(runId, text, 'cli');
  } catch (error) {
    // The run may have ended between the look and the signal.
    const after = await runs.describe(runId);
    throw after && after.status !== 'RUNNING' ? finishedRun(after) : error;
  }
  out(`directive sent to research run ${run.runId} (${run.workflowId})`);
  return EXIT.ok;
}

/** `research list`: research runs of this task queue (every run with `--all`), newest first, with their outcome. */
export async function researchListCommand(options: { all?: boolean }): Promise<number> {
  const config = runtime.config();
  const runs = new ResearchRuns(await runtime.client(config));
  // This task queue's runs, and those `research demo` ran on the queue it derives from it.
  const queue = config.SCRATCHPAD_TASK_QUEUE;
  const taskQueue = options.all ? undefined : [queue, `${queue}-research-demo`];
  let listed = 0;
  for await (const run of runs.list({ ...(taskQueue !== undefined && { taskQueue }) })) {
    if (listed++ === 0) out('WORKFLOW ID\tSTATUS\tOUTCOME\tSTARTED');
    out(`${run.workflowId}\t${run.status}\t${run.outcome || '-'}\t${run.startTime.toISOString()}`);
  }
  if (listed === 0) {
    const where = taskQueue === undefined ? '' : ` on task queue "${queue}" (--all lists every run)`;
    process.stderr.write(`no research runs${where}\n`);
  }
  return EXIT.ok;
}
