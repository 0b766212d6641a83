import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { lastLines } from '../dev-server/log-tail';
import { isScratchpadWorker, stopProcessGroup } from '../dev-server/process-control';
import { packageRoot } from './package-root';
import { workerLogFile } from './in-process-worker';
import { localPid, taskQueuePollers } from './worker-presence';

/** What `<home>/workers/<pid>.json` says of a worker `scratchpad up` started. */
export interface WorkerRecord {
  pid: number;
  taskQueue: string;
  address: string;
  namespace: string;
  /** The default model; undefined when workflows must name theirs (one of `models`). */
  model: string | undefined;
  models: string[];
  logFile: string;
  startedAt: string;
}

/** A recorded worker and whether it still runs. */
export type ListedWorker = WorkerRecord & { running: boolean };

function recordsDirectory(home: string): string {
  return path.join(home, 'workers');
}

/** Every worker `up` recorded in this data directory, each marked running or not (a pid reused by another program is not). */
export function recordedWorkers(home: string): ListedWorker[] {
  const directory = recordsDirectory(home);
  const names = fs.existsSync(directory) ? fs.readdirSync(directory).filter((name) => name.endsWith('.json')) : [];
  return names.flatMap((name) => {
    try {
      const record = JSON.parse(fs.readFileSync(path.join(directory, name), 'utf8')) as WorkerRecord;
      return [{ ...record, running: isScratchpadWorker(record.pid) }];
    } catch {
      return [];
    }
  });
}

/** Forgets a recorded worker. */
export function forgetWorker(home: string, pid: number): void {
  fs.rmSync(path.join(recordsDirectory(home), `${pid}.json`), { force: true });
}

/** What a background worker runs with: `scratchpad worker`'s options. */
export interface WorkerLaunch {
  model: string | undefined;
  models: readonly string[];
  tools?: string;
  mcpConfig?: string;
}

/**
 * Starts `scratchpad worker` detached (a session and process group of its own, output appended to
 * `<home>/worker.log`), records it, and resolves once the server lists it polling; a worker that exits first is an
 * error carrying the end of its log.
 */
export async function launchWorker(config: Config, client: Client, launch: WorkerLaunch): Promise<WorkerRecord> {
  const logFile = workerLogFile(config);
  fs.mkdirSync(recordsDirectory(config.home), { recursive: true });
  const args = [path.join(packageRoot(), 'bin', 'scratchpad.js'), 'worker'];
  if (launch.model) args.push('--model', launch.model);
  if (launch.models.length > 0) args.push('--models', launch.models.join(','));
  if (launch.tools) args.push('--tools', path.resolve(launch.tools));
  if (launch.mcpConfig) args.push('--mcp-config', path.resolve(launch.mcpConfig));
  fs.appendFileSync(logFile, `--- ${new Date().toISOString()} scratchpad up: worker ${args.slice(2).join(' ')}\n`);
  const output = fs.openSync(logFile, 'a');
  const env = { ...process.env, TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS };
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', output, output], env });
  fs.closeSync(output);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', () => undefined);
  child.unref();
  if (child.pid === undefined) throw new Error(`cannot start the worker: ${process.execPath} did not run`);
  const record: WorkerRecord = {
    pid: child.pid,
    taskQueue: config.SCRATCHPAD_TASK_QUEUE,
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    model: launch.model,
    models: [...launch.models],
    logFile,
    startedAt: new Date().toISOString(),
  };
  fs.writeFileSync(path.join(recordsDirectory(config.home), `${child.pid}.json`), `${JSON.stringify(record)}\n`);
  const deadline = Date.now() + 120_000;
  let code: number | null | undefined;
  void exited.then((value) => (code = value));
  for (;;) {
    const pollers = await taskQueuePollers(client, record.taskQueue).catch(() => []);
    if (pollers.some((poller) => localPid(poller.identity) === record.pid)) return record;
    if (code !== undefined || Date.now() > deadline) {
      forgetWorker(config.home, record.pid);
      if (code === undefined) await stopProcessGroup(record.pid);
      const why = code === undefined ? 'did not poll within 120 s' : `exited (${code ?? 'signal'})`;
      throw new Error(`the worker ${why}; the end of ${logFile}:\n${lastLines(logFile, 15).join('\n')}`);
    }
    await sleep(100);
  }
}

/** Stops a recorded worker and its process group (its MCP servers), then forgets it. */
export async function stopWorker(home: string, worker: ListedWorker): Promise<void> {
  if (worker.running) await stopProcessGroup(worker.pid);
  forgetWorker(home, worker.pid);
}
