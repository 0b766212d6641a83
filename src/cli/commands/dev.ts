import * as fs from 'node:fs';
import type { Config } from '../../config';
import { startDevServer } from '../../dev-server/dev-server';
import { devServerFiles, localStartProblem, runningDevServer } from '../../dev-server/local-server';
import { isServerAnswering } from '../../dev-server/server-probe';
import { errorMessage } from '../../common/error-message';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { withToolOptions, workerOptions } from '../worker-options';
import { startPolling } from '../worker-presence';

function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
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
export default defineCommand(
  (command) => workerOptions(command),
  async (options) => {
    await runtime.requireWorkerInstall();
    const config = withToolOptions(runtime.config(), options);
    const spec = runtime.modelSpec(config, options.model);
    // A bad module or MCP config is refused before a server (perhaps first a Temporal CLI download) is started.
    const toolRegistry = await runtime.loadTools(config);
    const server = await foregroundServer(config);
    try {
      const worker = await runtime.startWorker({ config, modelSpec: spec, toolRegistry });
      const { running, stopped } = await startPolling(
        worker,
        await runtime.client(config),
        config.SCRATCHPAD_TASK_QUEUE,
      );
      if (stopped) {
        await running;
        return EXIT.ok;
      }
      process.stderr.write(
        `${server?.uiUrl ? `Web UI: ${server.uiUrl}\n` : ''}` +
          `Worker polling "${config.SCRATCHPAD_TASK_QUEUE}" with model ${spec}; Ctrl-C to stop.\n`,
      );
      await runtime.reportTools(toolRegistry, config);
      await running;
    } finally {
      await server?.stop();
    }
    return EXIT.ok;
  },
);
