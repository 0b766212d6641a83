import type { Client } from '@temporalio/client';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../config';
import { type EnsuredServer, ensureDevServer } from '../dev-server/local-server';
import { withFileLock } from '../dev-server/file-lock';
import { readTail } from '../dev-server/log-tail';
import { type ListedWorker, launchWorker, recordedWorkers, stopWorker } from './background-worker';
import { CliError } from './errors';
import * as runtime from './runtime';
import type { WorkerFlags } from './worker-options';
import { errorMessage } from '../common/error-message';
import { livePollers } from './worker-presence';

// What `up` and the demo share: a dev server and a background worker, each reused when it runs already.

/** What runs once {@link bringUp} returns: the server, the worker of the task queue, and what this call started. */
export interface Running {
  server: EnsuredServer;
  worker: ListedWorker;
  startedWorker: boolean;
  client: Client;
}

export function describeWorker(worker: ListedWorker): string {
  const model = worker.model ?? `none (workflows name one of ${worker.models.join(', ')})`;
  const protocol = worker.running ? loggedProtocol(worker.logFile) : undefined;
  return `pid ${worker.pid}, task queue "${worker.taskQueue}", model ${model}${protocol ? ` (calls as #${protocol})` : ''}`;
}

/** How the worker asks its model for calls, as it logged once it knew (`model … speaks #json: …`). */
function loggedProtocol(logFile: string): string | undefined {
  const text = readTail(logFile, 256 * 1024);
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
  options: WorkerFlags & { extraModels?: readonly string[]; log: (line: string) => void },
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
