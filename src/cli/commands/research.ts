import { z } from 'zod';
import { ResearchRuns } from '../../client';
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
    runId: options.runId ?? `run-${Date.now().toString(36)}`,
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
  if (!parsed.success) throw new CliError(`invalid research run:\n${z.prettifyError(parsed.error)}`, EXIT.usage);
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
  return EXIT.error;
}

/** The workers' model usage, their sub-agents included. */
function usageLine({ usage, costUsd }: ResearchUsage): string {
  const cost = costUsd === null ? 'cost unknown (a model without a known price)' : `$${costUsd.toFixed(4)}`;
  return `Workers used ${usage.inputTokens} input and ${usage.outputTokens} output tokens, ${cost}.`;
}

/** `research board RUN`: the board, one line per entry, or JSON. */
export async function researchBoardCommand(runId: string, options: { json?: boolean }): Promise<number> {
  const board = await new ResearchRuns(await runtime.client(runtime.config())).board(runId);
  out(options.json ? JSON.stringify(board, null, 2) : board.map(entryLine).join('\n'));
  return EXIT.ok;
}

/** `research directive RUN TEXT`: a USER_DIRECTIVE, read into STRATEGY at the supervisor's next evaluation. */
export async function researchDirectiveCommand(runId: string, text: string): Promise<number> {
  if (text.trim() === '' || text.length > 2000) throw new CliError('a directive is 1-2000 characters', EXIT.usage);
  await new ResearchRuns(await runtime.client(runtime.config())).directive(runId, text, 'cli');
  out(`directive sent to research ${runId}`);
  return EXIT.ok;
}

/** `research list`: research runs, newest first, with their outcome. */
export async function researchListCommand(): Promise<number> {
  const runs = new ResearchRuns(await runtime.client(runtime.config()));
  for await (const run of runs.list()) {
    out(`${run.workflowId}\t${run.status}\t${run.outcome}\t${run.startTime.toISOString()}`);
  }
  return EXIT.ok;
}
