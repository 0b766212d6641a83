import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { type Config, ConfigError, describeConnection, loadConfig, resolveModelSpec } from '../config';
import { connectClient } from '../clients/connection';
import type { ToolRegistry } from '../activities/tools/registry';
import { closeWhenDone } from './command-scope';
import { CliError, EXIT } from './errors';
import { errorMessage } from '../common/error-message';

export {
  WORKER_GRACE_MS,
  WorkerFallback,
  installWorkerLogger,
  noWorkerMessage,
  startWorker,
  withWorker,
  workerLogFile,
} from './in-process-worker';

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

/**
 * The model an in-process worker would run: `override` (a command's `--model`) or the configured one; undefined when
 * none is configured, since a running worker has its own and the command then needs none.
 */
export function inProcessModel(current: Config, override?: string): string | undefined {
  if (override === undefined && !current.SCRATCHPAD_MODEL && !current.ANTHROPIC_API_KEY) return undefined;
  return modelSpec(current, override);
}

/** A command that runs a worker says first what a client-only install lacks, before anything of its configuration. */
export async function requireWorkerInstall(): Promise<void> {
  const { requireWorkerDependencies } = await import('../config/worker-dependencies');
  requireWorkerDependencies();
}

/** A client, or a clear error naming the address and how to get a server. */
export async function client(current: Config): Promise<Client> {
  try {
    const connected = await connectClient(current);
    closeWhenDone(connected.connection);
    return connected;
  } catch (error) {
    throw new CliError(
      `cannot reach Temporal at ${describeConnection(current.temporal)} (${errorMessage(error)}): start a local ` +
        'server with `npx scratchpad up`, or set TEMPORAL_ADDRESS (and TEMPORAL_TLS_*, TEMPORAL_API_KEY or a ' +
        'TEMPORAL_PROFILE) for a running cluster',
    );
  }
}

/** The worker's tools from `SCRATCHPAD_TOOLS` and `SCRATCHPAD_MCP_CONFIG`; a bad module or config is a CLI error. */
export async function loadTools(current: Config): Promise<ToolRegistry> {
  const { workerToolRegistry } = await import('../workers/create-worker');
  try {
    return await workerToolRegistry(current);
  } catch (error) {
    throw new CliError(errorMessage(error), EXIT.usage);
  }
}

/** One line on what the worker offers besides the built-ins, and a line per tool source it could not list. */
export async function reportTools(registry: ToolRegistry, current?: Config): Promise<void> {
  const { toolOptions } = await import('../workers/create-worker');
  const { tools, failures, unavailable = {} } = await registry.describe(current && toolOptions(current));
  // The built-ins this worker leaves out: a model is never offered a tool whose every call would fail.
  for (const line of Object.values(unavailable)) process.stderr.write(`Note: ${line}\n`);
  if (!registry.hasExternal) return;
  const bySource = new Map<string, number>();
  for (const tool of tools) bySource.set(tool.source, (bySource.get(tool.source) ?? 0) + 1);
  const counts = [...bySource].map(([source, count]) => `${count} ${source}`).join(', ');
  process.stderr.write(`Tools: ${counts} (\`scratchpad tools\` lists them).\n`);
  const reasons = new Set(Object.values(unavailable));
  for (const failure of failures.filter((line) => !reasons.has(line))) process.stderr.write(`Warning: ${failure}\n`);
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
