import * as os from 'node:os';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { isProcessAlive } from '../dev-server/process-control';

/** A live worker polls again at least every minute (the server's long-poll expiry); older listings are of gone ones. */
const FRESH_MS = 90_000;

/** A poller the server lists on a task queue: the worker's identity (`pid@host` by default) and its last poll. */
export interface Poller {
  identity: string;
  lastAccessMs: number | undefined;
}

/** The pollers the server lists on the workflow side of `taskQueue`, gone ones included (it remembers them for minutes). */
export async function taskQueuePollers(client: Client, taskQueue: string): Promise<Poller[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).map((poller) => ({
    identity: poller.identity ?? '',
    lastAccessMs: optionalTsToMs(poller.lastAccessTime),
  }));
}

/** The pid of a poller of this host (the SDK's default identity), else undefined. */
export function localPid(identity: string): number | undefined {
  const found = /^(\d+)@(.+)$/.exec(identity);
  return found && found[2] === os.hostname() ? Number(found[1]) : undefined;
}

/** Whether a listed poller may still poll: a local one whose process is gone cannot, nor one silent for too long. */
export function isPollerAlive(poller: Poller, now = Date.now()): boolean {
  const pid = localPid(poller.identity);
  if (pid !== undefined && !isProcessAlive(pid)) return false;
  return poller.lastAccessMs === undefined || now - poller.lastAccessMs < FRESH_MS;
}

/** The pollers of `taskQueue` that may still poll. */
export async function livePollers(client: Client, taskQueue: string): Promise<Poller[]> {
  return (await taskQueuePollers(client, taskQueue)).filter((poller) => isPollerAlive(poller));
}

/**
 * Resolves once the server lists `identity` among the pollers of `taskQueue` (true), or after `timeoutMs` or on
 * `signal` (false). A worker's first poll reaches the server a moment after `run()` starts; until then no command finds
 * the worker.
 */
async function untilListed(
  client: Client,
  taskQueue: string,
  identity: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!signal.aborted && Date.now() < deadline) {
    const pollers = await taskQueuePollers(client, taskQueue).catch(() => []);
    if (pollers.some((poller) => poller.identity === identity)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/**
 * Runs `worker` and resolves once the server lists it polling `taskQueue` (or after 10 s), so that a command started
 * after its "Worker polling" line finds it; `stopped` when the worker ended first, its run then settled.
 */
export async function startPolling(
  worker: Worker,
  client: Client,
  taskQueue: string,
): Promise<{ running: Promise<void>; stopped: boolean }> {
  const running = worker.run();
  const ended = new AbortController();
  void running.then(
    () => ended.abort(),
    () => ended.abort(),
  );
  await untilListed(client, taskQueue, worker.options.identity, 10_000, ended.signal);
  return { running, stopped: ended.signal.aborted };
}
