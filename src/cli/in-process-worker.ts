import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatWithOptions } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Worker, WorkerOptions } from '@temporalio/worker';
import { type Config, LOG_LEVELS, resolveModelSpec } from '../config';
import { unclaimedWorkflowTask } from '../clients/task-queues';
import type { WorkerSetup } from '../worker';
import { CliError } from './errors';
import { errorMessage } from '../common/error-message';
import { livePollers } from './worker-presence';

/** Where background and in-process workers write their logs: `<home>/worker.log`. */
export function workerLogFile(current: Pick<Config, 'home'>): string {
  return path.join(current.home, 'worker.log');
}

/** The one line a command prints when no worker serves its task queue and it may not run one itself. */
export function noWorkerMessage(current: Config): string {
  return (
    `no worker polls task queue "${current.SCRATCHPAD_TASK_QUEUE}" at ${current.TEMPORAL_ADDRESS}: start one with ` +
    `\`npx scratchpad up\` (in the background, logs in ${workerLogFile(current)}) or \`npx scratchpad worker\` ` +
    'in another terminal'
  );
}

/** Appends the worker runtime's log lines to `file`, formatted as the SDK's default logger does, without colours. */
function appendTo(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return (entry: { level: string; message: string; timestampNanos: bigint; meta?: unknown }) => {
    const date = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
    const meta = entry.meta === undefined ? '' : ` ${formatWithOptions({ colors: false, depth: 6 }, entry.meta)}`;
    fs.appendFileSync(file, `${date} [${entry.level}] ${entry.message}${meta}\n`);
  };
}

/**
 * Worker and bundler chatter at INFO would drown the command's output; SCRATCHPAD_LOG_LEVEL raises it. With `logFile`
 * the lines go there instead of stderr (a worker inside a command must not write into its conversation). Installed
 * before this process first runs workflow code (a worker, a replay), which is when the worker runtime starts.
 */
export async function installWorkerLogger(logFile?: string): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  const requested = (process.env.SCRATCHPAD_LOG_LEVEL ?? 'WARN').toUpperCase();
  const level = (LOG_LEVELS as readonly string[]).includes(requested)
    ? (requested as (typeof LOG_LEVELS)[number])
    : 'WARN';
  try {
    Runtime.install({
      logger: logFile ? new DefaultLogger(level, appendTo(logFile)) : new DefaultLogger(level),
      // A worker inside a command is the command's: its Ctrl-C cancels the command's work (a turn), which the worker
      // must stay up to serve, rather than shut the worker down under it. The native core's own lines (a query that
      // expired, a poll retried) would otherwise go to stdout, into the command's output: they go to the file too.
      ...(logFile && {
        shutdownSignals: [],
        telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
      }),
    });
  } catch {
    // Already installed in this process (by an earlier worker, or by an embedding program): keep that one.
  }
}

/**
 * How a worker inside a command (its logs in a file) runs workflow code: on the command's own thread. A workflow thread
 * would load the SDK and its protobuf definitions a second time, about 0.3 s of CPU for the few workflow tasks of one
 * command. The SDK calls this `debugMode`, which also lifts its limit on how long workflow code may run at once; the
 * limit is set back to the SDK's usual 5 s, so a workflow task that never yields still fails instead of hanging.
 */
export const COMMAND_THREAD = { debugMode: true, isolateExecutionTimeout: '5s' } as Partial<WorkerOptions>;

/**
 * A worker in this process, its runtime's logger installed first; the worker code is loaded only now. With `logFile`
 * it is a worker inside a command, which runs workflow code on the command's thread ({@link COMMAND_THREAD}).
 */
export async function startWorker(setup: WorkerSetup, options: { logFile?: string } = {}): Promise<Worker> {
  await installWorkerLogger(options.logFile);
  const { createWorker } = await import('../worker');
  if (!options.logFile) return createWorker(setup);
  return createWorker({ ...setup, workerOptions: { ...COMMAND_THREAD, ...setup.workerOptions } });
}

/** How long work may wait for a listed worker to take it before that worker counts as gone. */
export const WORKER_GRACE_MS = 3000;

/** Why no model is usable, as the command line would refuse. */
function modelSpecHelp(current: Config): string {
  try {
    resolveModelSpec(current);
    return '';
  } catch (error) {
    return errorMessage(error);
  }
}

/** Work to serve: a thunk is started only once a worker is known to serve it, so a refusal leaves nothing behind. */
type Work<T> = Promise<T> | (() => Promise<T>);

/**
 * Serves a command's work with a live worker of its task queue. When none polls (at once when the server lists no
 * live poller; otherwise when the agent's workflow task still waits, unclaimed, after {@link WORKER_GRACE_MS}) it
 * fails with {@link noWorkerMessage}, or with SCRATCHPAD_IN_PROCESS_WORKER=true runs a worker in this process, whose
 * logs go to `<home>/worker.log`.
 */
export class WorkerFallback {
  private worker?: Worker;
  private running?: Promise<void>;

  private readonly log: (line: string) => void;

  /**
   * `spec` is the in-process worker's default model (undefined: none configured, which only an in-process worker
   * needs); `models` are the other specs the command's own workflows name, allowed on it beside SCRATCHPAD_MODELS.
   */
  constructor(
    private readonly temporalClient: Client,
    private readonly current: Config,
    private readonly spec: string | undefined,
    private readonly options: { models?: readonly string[]; log?: (line: string) => void } = {},
  ) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /**
   * Waits for `work`; `workflowId` is the workflow whose tasks a live worker would pick up. `quick` work (a query)
   * takes a live worker milliseconds and leaves no pending task to inspect, so its grace period alone decides.
   */
  async serve<T>(work: Work<T>, workflowId: string, options: { quick?: boolean } = {}): Promise<T> {
    const begin = () => (typeof work === 'function' ? work() : work);
    if (this.worker) return begin();
    const queue = this.current.SCRATCHPAD_TASK_QUEUE;
    if ((await livePollers(this.temporalClient, queue)).length === 0) {
      await this.start('no worker polls', work);
      return begin();
    }
    const running = begin();
    const settled = running.then(
      () => true,
      () => true,
    );
    let unclaimed: string | undefined;
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), WORKER_GRACE_MS)));
      const done = await Promise.race([settled, waited]);
      clearTimeout(timer);
      if (done) return running;
      if (!options.quick) {
        // A task seen unclaimed once may have been scheduled a moment ago (a busy machine's worker takes it soon): the
        // same task still unclaimed a grace period later is one no live worker takes.
        const seen = await unclaimedWorkflowTask(this.temporalClient, workflowId);
        const stillUnclaimed = seen !== undefined && seen === unclaimed;
        unclaimed = seen;
        if (!stillUnclaimed) continue;
      }
      await this.start(`no worker took the task within ${WORKER_GRACE_MS / 1000} s on`, running);
      return running;
    }
  }

  private async start<T>(reason: string, work: Work<T>): Promise<void> {
    if (!this.current.SCRATCHPAD_IN_PROCESS_WORKER) {
      if (typeof work !== 'function') {
        // Work already sent waits on a server call that never ends without a worker: let the command exit.
        work.catch(() => undefined);
        await this.temporalClient.connection.close().catch(() => undefined);
      }
      throw new CliError(noWorkerMessage(this.current));
    }
    const queue = this.current.SCRATCHPAD_TASK_QUEUE;
    // Only now is a model needed: a running worker brings its own.
    if (this.spec === undefined) throw new CliError(`${reason} task queue "${queue}".\n${modelSpecHelp(this.current)}`);
    const logFile = workerLogFile(this.current);
    this.log(`${reason} task queue "${queue}"; running one in this process (model ${this.spec}, logs in ${logFile}).`);
    const setup = { config: this.current, modelSpec: this.spec, models: this.options.models };
    this.worker = await startWorker(setup, { logFile });
    this.running = this.worker.run();
  }

  /** Whether the work is served by a worker in this process, which stops when the command ends. */
  get inProcess(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    if (!this.worker) return;
    this.worker.shutdown();
    await this.running;
  }
}

/** Runs `work` with a worker available: a live one, or one in this process (see {@link WorkerFallback}). */
export async function withWorker<T>(
  temporalClient: Client,
  current: Config,
  spec: string | undefined,
  workflowId: string,
  work: (served: { readonly inProcess: boolean }) => Promise<T>,
  options: { quick?: boolean; models?: readonly string[] } = {},
): Promise<T> {
  const fallback = new WorkerFallback(temporalClient, current, spec, { models: options.models });
  try {
    return await fallback.serve(() => work(fallback), workflowId, options);
  } finally {
    await fallback.close();
  }
}
