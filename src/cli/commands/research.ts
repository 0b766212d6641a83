import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { RoutedScriptedProvider } from '../../activities/model/routed';
import type { BoardEntry } from '../../core/board';
import type { ResearchInput, ResearchResult, ResearchUsage } from '../../core/research';
import { entryLine } from '../../core/research-render';
import { researchWorkflowId } from '../../common/ids';
import { boardQuery, directiveSignal } from '../../common/research-messages';
import type { Config } from '../../config';
import { ensureDevServer } from '../../dev-server/dev-server';
import { createWorker } from '../../worker/worker';
import { CliError, EXIT } from '../errors';
import { DEMO_COMPANIES, demoRoutes, fixturePages, serveFixtureWeb } from '../research-fixture';
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
  const client = await runtime.client(config);
  const spec = runtime.modelSpec(config, options.workerModel ?? options.model);
  const input = researchInput(question, options, config);
  const workflowId = researchWorkflowId(input.runId);
  return runtime.withWorker(client, config, spec, workflowId, () => follow(client, config, input));
}

function researchInput(question: string, options: ResearchStartOptions, config: Config): ResearchInput {
  return {
    runId: options.runId ?? `run-${Date.now().toString(36)}`,
    question,
    // Without lists the question itself is the one entity, and its answer the one field.
    entities: splitList(options.entities) ?? [question.slice(0, 200)],
    fields: splitList(options.fields) ?? ['answer'],
    ...(options.maxWorkers && { maxWorkers: options.maxWorkers }),
    ...((options.workerModel ?? options.model) && { workerModel: options.workerModel ?? options.model }),
    ...(config.SCRATCHPAD_BOARD && { mirror: config.SCRATCHPAD_BOARD }),
  };
}

async function follow(client: Client, config: Config, input: ResearchInput): Promise<number> {
  const handle = await client.workflow.start('research', {
    taskQueue: config.SCRATCHPAD_TASK_QUEUE,
    workflowId: researchWorkflowId(input.runId),
    args: [input],
  });
  out(`research ${input.runId} started (${handle.workflowId})`);
  let printed = 0;
  const printNew = async () => {
    const board = await handle.query(boardQuery).catch(() => [] as BoardEntry[]);
    for (const entry of board.slice(printed)) out(entryLine(entry));
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
  await client.workflow.getHandle(researchWorkflowId(runId)).signal(directiveSignal, { text, by: 'cli' });
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

/** `research demo`: offline, with scripted workers against a fixture web served on loopback. */
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
    const providers = { [spec]: new RoutedScriptedProvider(demoRoutes(web.base), 'research-demo') };
    worker = await createWorker({ config: demoConfig, modelSpec: spec, providers });
    log(`fixture web at ${web.base}; scripted workers; task queue ${demoConfig.SCRATCHPAD_TASK_QUEUE}`);
    const input: ResearchInput = {
      runId: `demo-${Date.now().toString(36)}`,
      question: 'Revenue and employees of Acme and Globex',
      entities: Object.keys(DEMO_COMPANIES),
      fields: ['revenue', 'employees'],
      workerModel: spec,
    };
    const code = await worker.runUntil(follow(client, demoConfig, input));
    log(`requests to the fixture web: ${web.requests.join(' ')}`);
    return code;
  } finally {
    await web.close();
  }
}
