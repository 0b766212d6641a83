import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { type Config, ConfigError, LOG_LEVELS, describeConnection, loadConfig, resolveModelSpec } from '../config';
import { connectClient } from '../client';
import { hasPollers, isWorkflowTaskUnclaimed } from '../clients/task-queues';
import type { ToolRegistry } from '../activities/tools/registry';
import type { WorkerSetup } from '../worker';
import { CliError, EXIT } from './errors';
import { errorMessage } from '../common/error-message';

/** Configuration from the environment, with bad values reported as a CLI error. */
export function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

/** The model spec for commands that run a model; refuses with instructions when none is usable. */
export function modelSpec(current: Config, override?: string): string {
  try {
    return resolveModelSpec(current, override);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

/** A client, or a clear error naming the address and how to get a server. */
export async function client(current: Config): Promise<Client> {
  try {
    return await connectClient(current);
  } catch (error) {
    throw new CliError(
      `cannot reach Temporal at ${describeConnection(current.temporal)} (${errorMessage(error)}).\n` +
        'Start a local server with `npx scratchpad dev`, or set TEMPORAL_ADDRESS (and TEMPORAL_TLS_*, ' +
        'TEMPORAL_API_KEY or a TEMPORAL_PROFILE) for a running cluster.',
    );
  }
}

/**
 * Worker and bundler chatter at INFO would drown the command's output; SCRATCHPAD_LOG_LEVEL raises it. Installed
 * before this process first runs workflow code (a worker, a replay), which is when the worker runtime starts.
 */
export async function installWorkerLogger(): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  const requested = (process.env.SCRATCHPAD_LOG_LEVEL ?? 'WARN').toUpperCase();
  const level = (LOG_LEVELS as readonly string[]).includes(requested)
    ? (requested as (typeof LOG_LEVELS)[number])
    : 'WARN';
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    // Already installed in this process (by an earlier worker, or by an embedding program): keep that one.
  }
}

/** A worker in this process, its runtime's logger installed first; the worker code is loaded only now. */
export async function startWorker(setup: WorkerSetup): Promise<Worker> {
  await installWorkerLogger();
  const { createWorker } = await import('../worker');
  return createWorker(setup);
}

/** The worker's tools from `SCRATCHPAD_TOOLS` and `SCRATCHPAD_MCP_CONFIG`; a bad module or config is a CLI error. */
export async function loadTools(current: Config): Promise<ToolRegistry> {
  const { workerToolRegistry } = await import('../worker');
  try {
    return await workerToolRegistry(current);
  } catch (error) {
    throw new CliError(errorMessage(error), EXIT.usage);
  }
}

/** One line on what the worker offers besides the built-ins, and a line per tool source it could not list. */
export async function reportTools(registry: ToolRegistry): Promise<void> {
  if (!registry.hasExternal) return;
  const { tools, failures } = await registry.describe();
  const bySource = new Map<string, number>();
  for (const tool of tools) bySource.set(tool.source, (bySource.get(tool.source) ?? 0) + 1);
  const counts = [...bySource].map(([source, count]) => `${count} ${source}`).join(', ');
  process.stderr.write(`Tools: ${counts} (\`scratchpad tools\` lists them).\n`);
  for (const failure of failures) process.stderr.write(`Warning: ${failure}\n`);
}

/** How long work may wait for a running worker before this process serves it itself. */
export const WORKER_GRACE_MS = 3000;

/**
 * Serves a command's work with an in-process worker when no other worker takes it: at once when the task queue
 * has never been polled; otherwise when the agent's workflow task still waits, unclaimed, after
 * {@link WORKER_GRACE_MS} (the server's poller list also shows workers that have just exited).
 */
export class WorkerFallback {
  private worker?: Worker;
  private running?: Promise<void>;

  private readonly log: (line: string) => void;

  /**
   * `spec` is the worker's default model; `models` are the other specs the command's own workflows name (a research
   * run's worker model), allowed on this worker beside SCRATCHPAD_MODELS.
   */
  constructor(
    private readonly temporalClient: Client,
    private readonly current: Config,
    private readonly spec: string,
    private readonly options: { models?: readonly string[]; log?: (line: string) => void } = {},
  ) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /**
   * Waits for `work`; `workflowId` is the workflow whose tasks a live worker would pick up. `quick` work (a query)
   * takes a live worker milliseconds and leaves no pending task to inspect, so its grace period alone decides.
   */
  async serve<T>(work: Promise<T>, workflowId: string, options: { quick?: boolean } = {}): Promise<T> {
    if (this.worker) return work;
    if (!(await hasPollers(this.temporalClient, this.current.SCRATCHPAD_TASK_QUEUE))) {
      await this.start('no worker polls');
      return work;
    }
    const settled = work.then(
      () => true,
      () => true,
    );
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), WORKER_GRACE_MS)));
      const done = await Promise.race([settled, waited]);
      clearTimeout(timer);
      if (done) return work;
      if (options.quick || (await isWorkflowTaskUnclaimed(this.temporalClient, workflowId))) {
        await this.start(`no worker took the task within ${WORKER_GRACE_MS / 1000} s on`);
        return work;
      }
    }
  }

  private async start(reason: string): Promise<void> {
    this.log(
      `${reason} task queue "${this.current.SCRATCHPAD_TASK_QUEUE}"; running one in this process (model ${this.spec}).`,
    );
    this.worker = await startWorker({ config: this.current, modelSpec: this.spec, models: this.options.models });
    this.running = this.worker.run();
  }

  async close(): Promise<void> {
    if (!this.worker) return;
    this.worker.shutdown();
    await this.running;
  }
}

/** Runs `work` with a worker available: the running one, or one in this process (see {@link WorkerFallback}). */
export async function withWorker<T>(
  temporalClient: Client,
  current: Config,
  spec: string,
  workflowId: string,
  work: () => Promise<T>,
  options: { quick?: boolean; models?: readonly string[] } = {},
): Promise<T> {
  const fallback = new WorkerFallback(temporalClient, current, spec, { models: options.models });
  try {
    return await fallback.serve(work(), workflowId, options);
  } finally {
    await fallback.close();
  }
}

/** Turns a rejected update (validator or handler error) into a CLI error carrying the workflow's reason. */
export async function unwrapUpdateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause as Error | undefined;
      throw new CliError(`rejected: ${cause?.message ?? error.message}`, EXIT.usage);
    }
    throw error;
  }
}
