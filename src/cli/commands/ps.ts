import { runningDevServer } from '../../dev-server/local-server';
import { isServerAnswering } from '../../dev-server/server-probe';
import { recordedWorkers } from '../background-worker';
import { describeWorker } from '../bring-up';
import { defineCommand } from '../command';
import { deploymentLines } from '../deployments';
import { EXIT } from '../errors';
import * as runtime from '../runtime';
import { livePollers, localPid } from '../worker-presence';

/** `scratchpad ps`: the dev server and workers of this data directory, and who polls the configured task queue. */
export default defineCommand(
  (command) => command,
  async () => {
    const config = runtime.config();
    const lines: string[] = [];
    const server = runningDevServer(config.home);
    // With the configured TLS and API key: a cluster that wants them answers no plain probe.
    const answering = await isServerAnswering(config.temporal);
    if (server) {
      const ui = server.uiUrl ? `, Web UI ${server.uiUrl}` : '';
      lines.push(
        `Temporal dev server: ${server.address}${ui}, pid ${server.pid} (state ${server.dbFile}, log ${server.logFile})`,
      );
    }
    if (answering && server?.address !== config.TEMPORAL_ADDRESS) {
      lines.push(`Temporal server: ${config.TEMPORAL_ADDRESS} answers (not started by scratchpad)`);
    } else if (!answering) {
      lines.push(`Temporal server: none answers at ${config.TEMPORAL_ADDRESS}`);
    }
    const workers = recordedWorkers(config.home);
    for (const worker of workers) {
      const state = worker.running ? 'running' : 'NOT RUNNING (exited; see its log)';
      lines.push(`Worker: ${describeWorker(worker)}, ${worker.address}: ${state}; log ${worker.logFile}`);
    }
    if (!workers.some((worker) => worker.running))
      lines.push('No background worker runs (`npx scratchpad up` starts one).');
    if (answering) {
      const client = await runtime.client(config);
      const ours = new Set(workers.map((worker) => worker.pid));
      const others = (await livePollers(client, config.SCRATCHPAD_TASK_QUEUE)).filter((poller) => {
        const pid = localPid(poller.identity);
        return pid === undefined || !ours.has(pid);
      });
      for (const poller of others) lines.push(`Also polling "${config.SCRATCHPAD_TASK_QUEUE}": ${poller.identity}`);
      lines.push(...(await deploymentLines(client, config.SCRATCHPAD_TASK_QUEUE)));
    }
    if (!server && !answering && workers.length === 0) {
      lines.splice(
        0,
        lines.length,
        `Nothing runs: no Temporal server at ${config.TEMPORAL_ADDRESS}, no background worker.`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
);
