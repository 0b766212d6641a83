import * as os from 'node:os';
import { temporal } from '@temporalio/proto';
import type { Worker, WorkerPlugin } from '@temporalio/worker';
import type { ObservationStore } from '../activities/observations/entry';
import { MemoryObservationStore } from '../activities/observations/memory-store';
import { openObservationStore } from '../activities/observations/open-store';
import { SqliteObservationStore } from '../activities/observations/sqlite-store';
import { observationsSpec } from '../config';

/** A store, or a spec as `SCRATCHPAD_OBSERVATIONS` takes it: a SQLite file path, `sqlite:PATH` or `redis://…`. */
export type ObservationStoreChoice = ObservationStore | string;

/**
 * The store a choice names; with none, the one the CLI worker uses (`SCRATCHPAD_OBSERVATIONS`, else the data
 * directory's `observations.db`), so archived memory outlives the worker process.
 */
export function chosenObservationStore(
  choice?: ObservationStoreChoice,
  env: NodeJS.ProcessEnv = process.env,
): ObservationStore {
  if (typeof choice === 'object') return choice;
  if (choice !== undefined && choice.trim() === '') {
    throw new Error('observations: an empty spec; give a SQLite file path, sqlite:PATH or redis://HOST:PORT');
  }
  // A Redis connection must not keep a process alive once its worker has ended; the SQLite file needs no closing.
  return openObservationStore(choice ?? observationsSpec(env), { unref: true });
}

/** Where a store that other hosts cannot read keeps its entries; undefined for a shared store or one of the user's. */
export function localStoreOf(store: ObservationStore): { where: string; sharedOnThisHost: boolean } | undefined {
  if (store instanceof MemoryObservationStore) return { where: 'in process memory', sharedOnThisHost: false };
  if (store instanceof SqliteObservationStore)
    return { where: `in the SQLite file ${store.file}`, sharedOnThisHost: true };
  return undefined;
}

const { TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;

/** Identities of the other workers the server saw polling `worker`'s task queue lately (it remembers minutes). */
async function otherPollers(worker: Worker): Promise<string[]> {
  const service = worker.connection?.workflowService;
  if (!service) return [];
  const { namespace, taskQueue, identity } = worker.options;
  const identities = new Set<string>();
  for (const taskQueueType of [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
    const response = await service.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType,
    });
    for (const poller of response.pollers ?? []) {
      if (poller.identity && poller.identity !== identity) identities.add(poller.identity);
    }
  }
  return [...identities];
}

/** The line a worker logs when other workers on its queue cannot read what its store holds. */
export function localStoreLine(where: string, taskQueue: string, others: readonly string[]): string {
  const shown = others.slice(0, 5).join(', ') + (others.length > 5 ? ', …' : '');
  return (
    `observation store: this worker keeps archived memory and large observations ${where}, which ` +
    `${others.length} other worker(s) polling task queue "${taskQueue}" (${shown}) cannot read; an agent's cycle ` +
    'there finds its archives missing. Give every worker on the queue one shared store: ' +
    'SCRATCHPAD_OBSERVATIONS=redis://HOST:PORT, or the plugin\'s observations: "redis://HOST:PORT".'
  );
}

/**
 * Runs `run` and, a few seconds after the worker starts polling, logs one line when its store is local and other
 * workers poll its task queue: same-host workers share a SQLite file, other hosts and other processes' memory do not.
 */
export async function whileCheckingStoreReach(
  worker: Worker,
  store: ObservationStore,
  log: (line: string) => void,
  run: () => Promise<void>,
  delayMs = 3000,
): Promise<void> {
  const local = localStoreOf(store);
  const timer =
    local &&
    setTimeout(() => {
      const thisHost = `@${os.hostname()}`;
      otherPollers(worker).then(
        (others) => {
          const unreachable = local.sharedOnThisHost ? others.filter((id) => !id.endsWith(thisHost)) : others;
          if (unreachable.length > 0) log(localStoreLine(local.where, worker.options.taskQueue, unreachable));
        },
        // The check only informs; a server that cannot answer it now is no reason to disturb the worker.
        () => undefined,
      );
    }, delayMs);
  timer?.unref();
  try {
    await run();
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** The same check for a worker the project creates (`scratchpad worker`), logged through its `log`. */
export function checkingStoreReach(store: ObservationStore, log: (line: string) => void): WorkerPlugin {
  return {
    name: 'durable-scratchpad-store-reach',
    runWorker: (worker, next) => whileCheckingStoreReach(worker, store, log, () => next(worker)),
  };
}
