import type { Client } from '@temporalio/client';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../../config';
import { type EnsuredServer, ensureDevServer, runningDevServer, stopDevServer } from '../../dev-server/local-server';
import { withFileLock } from '../../dev-server/file-lock';
import { isServerAnswering } from '../../dev-server/server-probe';
import { type ListedWorker, launchWorker, recordedWorkers, stopWorker } from '../background-worker';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { type ServeOptions, withToolOptions } from './serve';
import { errorMessage } from '../../common/error-message';
import { livePollers, localPid } from '../worker-presence';
import { deploymentLines } from './deploy';

/** What runs once {@link bringUp} returns: the server, the worker of the task queue, and what this call started. */
export interface Running {
  server: EnsuredServer;
  worker: ListedWorker;
  startedWorker: boolean;
  client: Client;
}

function describeWorker(worker: ListedWorker): string {
  const model = worker.model ?? `none (workflows name one of ${worker.models.join(', ')})`;
  const protocol = worker.running ? loggedProtocol(worker.logFile) : undefined;
  return `pid ${worker.pid}, task queue "${worker.taskQueue}", model ${model}${protocol ? ` (calls as #${protocol})` : ''}`;
}

/** How the worker asks its model for calls, as it logged once it knew (`model … speaks #json: …`). */
function loggedProtocol(logFile: string): string | undefined {
  let text: string;
  try {
    const size = fs.statSync(logFile).size;
    const descriptor = fs.openSync(logFile, 'r');
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    fs.readSync(descriptor, buffer, 0, length, size - length);
    fs.closeSync(descriptor);
    text = buffer.toString('utf8');
  } catch {
    return undefined;
  }
  const found = [...text.matchAll(/^model \S+ speaks #(\w+):/gm)].at(-1);
  return found?.[1];
}

function isServing(worker: ListedWorker, config: Config): boolean {
  return (
    worker.taskQueue === config.SCRATCHPAD_TASK_QUEUE &&
    worker.address === config.TEMPORAL_ADDRESS &&
    worker.namespace === config.TEMPORAL_NAMESPACE
  );
}

/**
 * `up` without its printing: the dev server (see ensureDevServer) and a detached worker for the configured task queue,
 * each reused when it runs already; `extraModels` are allowed on a worker it starts beside SCRATCHPAD_MODELS.
 */
export async function bringUp(
  config: Config,
  options: ServeOptions & { extraModels?: readonly string[]; log: (line: string) => void },
): Promise<Running> {
  const model = runtime.inProcessModel(config, options.model);
  const models = [...new Set([...config.SCRATCHPAD_MODELS, ...(options.extraModels ?? [])])];
  // A worker whose workflows name their model needs no default; with neither, say how to configure one, first.
  const needed = !recordedWorkers(config.home).some((worker) => worker.running && isServing(worker, config));
  if (needed && model === undefined && models.length === 0) runtime.modelSpec(config);
  fs.mkdirSync(config.home, { recursive: true });
  const lock = path.join(config.home, 'up.lock');
  return withFileLock(lock, options.log, async () => {
    const server = await ensureDevServer(config, { log: options.log }).catch((error: unknown) => {
      throw new CliError(errorMessage(error));
    });
    const client = await runtime.client(config);
    const recorded = recordedWorkers(config.home);
    for (const gone of recorded.filter((worker) => !worker.running)) {
      options.log(`worker pid ${gone.pid} (task queue "${gone.taskQueue}") had exited; see ${gone.logFile}`);
      await stopWorker(config.home, gone);
    }
    const same = recorded.find((worker) => worker.running && isServing(worker, config));
    if (same) return { server, worker: same, startedWorker: false, client };
    const others = (await livePollers(client, config.SCRATCHPAD_TASK_QUEUE)).map((poller) => poller.identity);
    if (others.length > 0)
      options.log(`other workers poll "${config.SCRATCHPAD_TASK_QUEUE}" too: ${others.join(', ')}`);
    const record = await launchWorker(config, client, { ...options, model, models }).catch((error: unknown) => {
      throw new CliError(errorMessage(error));
    });
    return { server, worker: { ...record, running: true }, startedWorker: true, client };
  });
}

/** The lines `up` and the demo print about what runs and how to stop it. */
export function runningLines(running: Running): string[] {
  const { server, worker } = running;
  const ui = server.uiUrl ? `, Web UI ${server.uiUrl}` : '';
  return [
    `Temporal server: ${server.address}${ui} (${server.started ? 'started now, in the background' : 'already running'})`,
    `Worker: ${describeWorker(worker)} (${running.startedWorker ? 'started now, in the background' : 'already running'})`,
    `Worker logs: ${worker.logFile}`,
    '`npx scratchpad ps` shows what runs; `npx scratchpad down` stops it.',
  ];
}

/** `scratchpad up`: a dev server and a worker in the background, each reused when it runs already. */
export async function upCommand(options: ServeOptions): Promise<number> {
  const config = withToolOptions(runtime.config(), options);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const running = await bringUp(config, { ...options, log });
  const asked = runtime.inProcessModel(config, options.model);
  if (!running.startedWorker && asked !== undefined && asked !== running.worker.model) {
    log(`The running worker has another model; \`npx scratchpad down\`, then \`up\` again, to use ${asked}.`);
  }
  process.stdout.write(`${runningLines(running).join('\n')}\n`);
  return EXIT.ok;
}

/** `scratchpad down`: stops the workers `up` started and, unless `keepServer`, the dev server scratchpad started. */
export async function downCommand(options: { keepServer?: boolean }): Promise<number> {
  const config = runtime.config();
  const lines: string[] = [];
  for (const worker of recordedWorkers(config.home)) {
    await stopWorker(config.home, worker);
    lines.push(
      worker.running
        ? `Stopped worker pid ${worker.pid} (task queue "${worker.taskQueue}").`
        : `Forgot worker pid ${worker.pid}, which had exited.`,
    );
  }
  const server = runningDevServer(config.home);
  if (server && !options.keepServer) {
    await stopDevServer(config.home);
    lines.push(`Stopped the dev server (pid ${server.pid}, ${server.address}); its state stays in ${server.dbFile}.`);
  } else if (server) {
    lines.push(`Left the dev server running (pid ${server.pid}, ${server.address}).`);
  } else if (await isServerAnswering(config.TEMPORAL_ADDRESS)) {
    lines.push(`Left the Temporal server at ${config.TEMPORAL_ADDRESS} running: scratchpad did not start it.`);
  }
  if (lines.length === 0) lines.push('Nothing to stop: no worker or dev server that scratchpad started runs.');
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** `scratchpad ps`: the dev server and workers of this data directory, and who polls the configured task queue. */
export async function psCommand(): Promise<number> {
  const config = runtime.config();
  const lines: string[] = [];
  const server = runningDevServer(config.home);
  // With the configured TLS and API key: a cluster that wants them answers no plain probe.
  const answering = await isServerAnswering(config.temporal);
  if (server) {
    const ui = server.uiUrl ? `, Web UI ${server.uiUrl}` : '';
    lines.push(
      `Temporal dev server: ${server.address}${ui}, pid ${server.pid} (state ${server.dbFile}, log ${server.logFile})`,
    );
  }
  if (answering && server?.address !== config.TEMPORAL_ADDRESS) {
    lines.push(`Temporal server: ${config.TEMPORAL_ADDRESS} answers (not started by scratchpad)`);
  } else if (!answering) {
    lines.push(`Temporal server: none answers at ${config.TEMPORAL_ADDRESS}`);
  }
  const workers = recordedWorkers(config.home);
  for (const worker of workers) {
    const state = worker.running ? 'running' : 'NOT RUNNING (exited; see its log)';
    lines.push(`Worker: ${describeWorker(worker)}, ${worker.address}: ${state}; log ${worker.logFile}`);
  }
  if (!workers.some((worker) => worker.running))
    lines.push('No background worker runs (`npx scratchpad up` starts one).');
  if (answering) {
    const client = await runtime.client(config);
    const ours = new Set(workers.map((worker) => worker.pid));
    const others = (await livePollers(client, config.SCRATCHPAD_TASK_QUEUE)).filter((poller) => {
      const pid = localPid(poller.identity);
      return pid === undefined || !ours.has(pid);
    });
    for (const poller of others) lines.push(`Also polling "${config.SCRATCHPAD_TASK_QUEUE}": ${poller.identity}`);
    lines.push(...(await deploymentLines(client, config.SCRATCHPAD_TASK_QUEUE)));
  }
  if (!server && !answering && workers.length === 0) {
    lines.splice(
      0,
      lines.length,
      `Nothing runs: no Temporal server at ${config.TEMPORAL_ADDRESS}, no background worker.`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
