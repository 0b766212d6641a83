import type { Connection } from '@temporalio/client';
import * as fs from 'node:fs';
import { registerSearchAttributes } from '../../clients/register-search-attributes';
import { startDevServer } from '../../dev-server/dev-server';
import { devServerFiles, localStartProblem, runningDevServer, stopDevServer } from '../../dev-server/local-server';
import { isServerAnswering } from '../../dev-server/server-probe';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { startDirectiveBridge } from '../../clients/directive-bridge';
import { type Config, modelAllowProblem } from '../../config';
import { errorMessage } from '../../common/error-message';
import { type DeploymentFlags, reportCurrentBuild, withDeployment } from './deploy';
import { workerBuild } from '../../config/deployment';
import { buildName } from '../../clients/deployments';

function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}

/**
 * The worker's default model; none when workflows must name theirs from SCRATCHPAD_MODELS / `--models` (the demo's
 * cycle does), else the refusal saying how to configure one.
 */
function workerModel(config: Config, override: string | undefined): string | undefined {
  const spec = runtime.inProcessModel(config, override);
  return spec ?? (config.SCRATCHPAD_MODELS.length > 0 ? undefined : runtime.modelSpec(config));
}

function describeModel(config: Config, spec: string | undefined): string {
  return spec ? `model ${spec}` : `no default model (workflows name one of ${config.SCRATCHPAD_MODELS.join(', ')})`;
}

/** `scratchpad worker`: poll the task queue until interrupted. */
export async function workerCommand(options: ServeOptions & DeploymentFlags): Promise<number> {
  const config = withDeployment(withToolOptions(runtime.config(), options), options);
  const spec = workerModel(config, options.model);
  const toolRegistry = await runtime.loadTools(config);
  const worker = await runtime.startWorker({ config, modelSpec: spec, toolRegistry });
  const build = workerBuild(config);
  process.stderr.write(
    `Worker polling "${config.SCRATCHPAD_TASK_QUEUE}" at ${config.TEMPORAL_ADDRESS} with ${describeModel(config, spec)}` +
      `${build ? `, as build ${buildName(build)}` : ''}; Ctrl-C to stop.\n`,
  );
  if (build) void reportCurrentBuild(await runtime.client(config), config.SCRATCHPAD_TASK_QUEUE, build);
  await runtime.reportTools(toolRegistry, config);
  // With a board mirror, directives published on Redis reach research runs through this worker's process.
  const bridge = config.SCRATCHPAD_BOARD
    ? await startDirectiveBridge(config.SCRATCHPAD_BOARD, await runtime.client(config), (line) =>
        process.stderr.write(`${line}\n`),
      )
    : undefined;
  try {
    await worker.run();
  } finally {
    await bridge?.close();
  }
  return EXIT.ok;
}

/** The options of `worker` and `dev`. */
export interface ServeOptions {
  model?: string;
  models?: string;
  tools?: string;
  mcpConfig?: string;
}

/** `--models` as SCRATCHPAD_MODELS reads it: a bad entry is a usage error naming it. */
function modelList(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const problem = entries.map(modelAllowProblem).find((found) => found !== undefined);
  if (problem) throw new CliError(`--models: ${problem}`, EXIT.usage);
  return entries;
}

/** `--models`, `--tools` and `--mcp-config` in place of their variables; tools are checked when the worker starts. */
export function withToolOptions(config: Config, options: ServeOptions): Config {
  return {
    ...config,
    ...(options.models !== undefined && { SCRATCHPAD_MODELS: modelList(options.models) }),
    ...(options.tools !== undefined && { SCRATCHPAD_TOOLS: options.tools }),
    ...(options.mcpConfig !== undefined && { SCRATCHPAD_MCP_CONFIG: options.mcpConfig }),
  };
}

/**
 * The dev server `dev` runs in the foreground, or none when a server answers at TEMPORAL_ADDRESS already (`dev` then
 * says it uses that one); a refusal when none answers and no dev server may start there.
 */
async function foregroundServer(config: Config) {
  const address = config.TEMPORAL_ADDRESS;
  if (await isServerAnswering(address)) {
    const ours = runningDevServer(config.home);
    const ui = ours?.address === address && ours.uiUrl ? ` (Web UI ${ours.uiUrl})` : '';
    process.stderr.write(`Using the Temporal server already running at ${address}${ui}; not starting another.\n`);
    return undefined;
  }
  const problem = await localStartProblem(address);
  if (problem) throw new CliError(problem);
  const port = portOf(address);
  fs.mkdirSync(config.home, { recursive: true });
  return startDevServer({
    ip: address.slice(0, address.lastIndexOf(':')),
    port,
    uiPort: port + 1000,
    dbFile: devServerFiles(config.home).dbFile,
    namespace: config.TEMPORAL_NAMESPACE,
  }).catch((error: unknown) => {
    // No Temporal CLI to be had, or a server that exits (a port in use): the reason, without a stack.
    throw new CliError(errorMessage(error));
  });
}

/** `scratchpad dev`: a dev server (SQLite file, Web UI), or the one already running, and a worker in the foreground. */
export async function devCommand(options: ServeOptions): Promise<number> {
  const config = withToolOptions(runtime.config(), options);
  const spec = runtime.modelSpec(config, options.model);
  // A bad module or MCP config is refused before a server (perhaps first a Temporal CLI download) is started.
  const toolRegistry = await runtime.loadTools(config);
  const server = await foregroundServer(config);
  try {
    const worker = await runtime.startWorker({ config, modelSpec: spec, toolRegistry });
    process.stderr.write(
      `${server?.uiUrl ? `Web UI: ${server.uiUrl}\n` : ''}` +
        `Worker polling "${config.SCRATCHPAD_TASK_QUEUE}" with model ${spec}; Ctrl-C to stop.\n`,
    );
    await runtime.reportTools(toolRegistry, config);
    await worker.run();
  } finally {
    await server?.stop();
  }
  return EXIT.ok;
}

/** `scratchpad setup`: register the project's search attributes on any cluster. */
export async function setupCommand(): Promise<number> {
  const config = runtime.config();
  const client = await runtime.client(config);
  await registerSearchAttributes(client.connection as Connection, config.TEMPORAL_NAMESPACE);
  process.stdout.write(
    `Search attributes registered in namespace ${config.TEMPORAL_NAMESPACE} at ${config.TEMPORAL_ADDRESS}.\n`,
  );
  return EXIT.ok;
}

/** `scratchpad server stop`: stop the detached dev server `npm start` or `up` left running (its workers stay). */
export async function serverStopCommand(): Promise<number> {
  const config = runtime.config();
  const stopped = await stopDevServer(config.home);
  if (!stopped) throw new CliError('no dev server started by scratchpad is running');
  process.stdout.write('Dev server stopped.\n');
  return EXIT.ok;
}
