import type { Client, WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import type { Worker } from '@temporalio/worker';
import { RoutedScriptedProvider } from '../../activities/model/routed';
import type { BoardEntry } from '../../core/research/board';
import {
  type ResearchInput,
  ResearchInputSchema,
  type ResearchResult,
  type ResearchUsage,
} from '../../core/research/run';
import { entryLine, strategyLines } from '../../core/research/render';
import { researchWorkflowId } from '../../common/ids';
import { boardQuery, researchDirectiveSignal } from '../../common/messages/research';
import type { Config } from '../../config';
import { ensureDevServer } from '../../dev-server/dev-server';
import { createWorker } from '../../workers/create-worker';
import { CliError, EXIT } from '../errors';
import { DEMO_COMPANIES, DEMO_PLAN, demoRoutes, fixturePages, planRoute, serveFixtureWeb } from '../research-fixture';
import * as runtime from '../runtime';

export interface ResearchStartOptions {
  entities?: string;
  fields?: string;
  maxWorkers?: number;
  model?: string;
  workerModel?: string;
  runId?: string;
}

const POLL_MS = 300;
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
  return runtime.withWorker(client, config, spec, workflowId, () => follow(client, config, input));
}

/** The run's input, checked here so a bad flag is a usage error rather than a workflow that cannot start. */
function researchInput(question: string, options: ResearchStartOptions, config: Config): ResearchInput {
  const entities = splitList(options.entities);
  const fields = splitList(options.fields);
  const workerModel = options.workerModel ?? options.model;
  const input: ResearchInput = {
    runId: options.runId ?? `run-${Date.now().toString(36)}`,
    question,
    // A list left out is planned from the question by the supervisor's model.
    ...(entities && { entities }),
    ...(fields && { fields }),
    ...(options.maxWorkers && { maxWorkers: options.maxWorkers }),
    ...(options.model && { model: options.model }),
    ...(workerModel && { workerModel }),
    ...(config.SCRATCHPAD_BOARD && { mirror: config.SCRATCHPAD_BOARD }),
  };
  const parsed = ResearchInputSchema().safeParse(input);
  if (!parsed.success) throw new CliError(`invalid research run:\n${z.prettifyError(parsed.error)}`, EXIT.usage);
  return input;
}

async function follow(client: Client, config: Config, input: ResearchInput): Promise<number> {
  const handle = await client.workflow.start('research', {
    taskQueue: config.SCRATCHPAD_TASK_QUEUE,
    workflowId: researchWorkflowId(input.runId),
    args: [input],
  });
  out(`research ${input.runId} started (${handle.workflowId})`);
  if (!input.entities || !input.fields) out(`planning: the supervisor's model turns the question into STRATEGY`);
  let printed = 0;
  const printNew = async () => {
    const board = await handle.query(boardQuery).catch(() => [] as BoardEntry[]);
    for (const entry of board.slice(printed)) [entryLine(entry), ...strategyLines(entry)].forEach(out);
    printed = Math.max(printed, board.length);
  };
  const result = handle.result();
  let done = false;
  void result.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    await printNew();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  await printNew();
  return printResult(await result, handle);
}

function printResult(result: ResearchResult, handle: WorkflowHandle): number {
  out('');
  if (result.usage) out(usageLine(result.usage));
  if (result.outcome === 'complete') {
    out(`Answer (${handle.workflowId}), citing VERIFIED entries ${result.citations.join(', ')}:`);
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
  const client = await runtime.client(runtime.config());
  const handle = client.workflow.getHandle(researchWorkflowId(runId));
  // A closed run's queries need a worker of its task queue; its result carries the final board instead.
  const { status } = await handle.describe();
  const board =
    status.name === 'RUNNING' ? await handle.query(boardQuery) : ((await handle.result()) as ResearchResult).board;
  out(options.json ? JSON.stringify(board, null, 2) : board.map(entryLine).join('\n'));
  return EXIT.ok;
}

/** `research directive RUN TEXT`: a USER_DIRECTIVE, read into STRATEGY at the supervisor's next evaluation. */
export async function researchDirectiveCommand(runId: string, text: string): Promise<number> {
  if (text.trim() === '' || text.length > 2000) throw new CliError('a directive is 1-2000 characters', EXIT.usage);
  const client = await runtime.client(runtime.config());
  await client.workflow.getHandle(researchWorkflowId(runId)).signal(researchDirectiveSignal, { text, by: 'cli' });
  out(`directive sent to research ${runId}`);
  return EXIT.ok;
}

/** `research list`: research runs, newest first, with their outcome. */
export async function researchListCommand(): Promise<number> {
  const client = await runtime.client(runtime.config());
  for await (const run of client.workflow.list({ query: `WorkflowType = 'research'` })) {
    const outcome = run.searchAttributes.CycleOutcome?.[0] ?? '';
    out(`${run.workflowId}\t${run.status.name}\t${String(outcome)}\t${run.startTime.toISOString()}`);
  }
  return EXIT.ok;
}

/** `research demo`: offline; a scripted supervisor plans, scripted workers research a fixture web on loopback. */
export async function researchDemoCommand(): Promise<number> {
  const config = runtime.config();
  const log = (line: string) => process.stderr.write(`[research demo] ${line}\n`);
  const web = await serveFixtureWeb(fixturePages(DEMO_COMPANIES));
  let worker: Worker | undefined;
  try {
    await ensureDevServer(config, { log });
    const client = await runtime.client(config);
    const spec = 'scripted:research-demo';
    const demoConfig: Config = {
      ...config,
      SCRATCHPAD_TASK_QUEUE: 'scratchpad-research-demo',
      SCRATCHPAD_SEARCH_URL: web.searchUrl,
      // The fixture web is on loopback, so the demo allows exactly that host.
      SCRATCHPAD_FETCH_ALLOW: web.allowance.fetchAllowHosts,
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: web.allowance.fetchAllowAddresses,
      SCRATCHPAD_FETCH_PORTS: web.allowance.fetchAllowPorts,
    };
    const question = 'Revenue and employees of Acme and Globex';
    const routes = { ...demoRoutes(web.base), [planRoute(question)]: DEMO_PLAN };
    const providers = { [spec]: new RoutedScriptedProvider(routes, 'research-demo') };
    worker = await createWorker({ config: demoConfig, modelSpec: spec, providers });
    log(`fixture web at ${web.base}; scripted workers; task queue ${demoConfig.SCRATCHPAD_TASK_QUEUE}`);
    const input: ResearchInput = {
      runId: `demo-${Date.now().toString(36)}`,
      question,
      // No lists: the scripted supervisor plans entities and fields from the question.
      model: spec,
      workerModel: spec,
    };
    const code = await worker.runUntil(follow(client, demoConfig, input));
    log(`requests to the fixture web: ${web.requests.join(' ')}`);
    return code;
  } finally {
    await web.close();
  }
}
