import { ResearchRuns } from '../../../clients/research-runs';
import { defineCommand } from '../../command';
import { EXIT } from '../../errors';
import { out } from '../../research-runs';
import * as runtime from '../../runtime';

/** `research list`: research runs of this task queue (every run with `--all`), newest first, with their outcome. */
export default defineCommand(
  (command) => command.option('--all', 'list the runs of every task queue'),
  async (options) => {
    const config = runtime.config();
    const runs = new ResearchRuns(await runtime.client(config));
    // This task queue's runs, and those `research demo` ran on the queue it derives from it.
    const queue = config.SCRATCHPAD_TASK_QUEUE;
    const taskQueue = options.all ? undefined : [queue, `${queue}-research-demo`];
    let listed = 0;
    for await (const run of runs.list({ ...(taskQueue !== undefined && { taskQueue }) })) {
      if (listed++ === 0) out('WORKFLOW ID\tSTATUS\tOUTCOME\tSTARTED');
      out(`${run.workflowId}\t${run.status}\t${run.outcome || '-'}\t${run.startTime.toISOString()}`);
    }
    if (listed === 0) {
      const where = taskQueue === undefined ? '' : ` on task queue "${queue}" (--all lists every run)`;
      process.stderr.write(`no research runs${where}\n`);
    }
    return EXIT.ok;
  },
);
