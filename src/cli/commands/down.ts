import { runningDevServer, stopDevServer } from '../../dev-server/local-server';
import { isServerAnswering } from '../../dev-server/server-probe';
import { recordedWorkers, stopWorker } from '../background-worker';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import * as runtime from '../runtime';

/** `scratchpad down`: stops the workers `up` started and, unless `keepServer`, the dev server scratchpad started. */
export default defineCommand(
  (command) => command.option('--keep-server', 'stop only the workers'),
  async (options) => {
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
  },
);
