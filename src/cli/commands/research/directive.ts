import { ResearchRuns } from '../../../clients/research-runs';
import { defineCommand } from '../../command';
import { CliError, EXIT } from '../../errors';
import { existingRun, finishedRun, out } from '../../research-runs';
import * as runtime from '../../runtime';

/** `research directive RUN TEXT`: a USER_DIRECTIVE, read into STRATEGY at the supervisor's next evaluation. */
export default defineCommand(
  (command) => command.argument('<run>', 'run id, with or without research/').argument('<text>', 'the directive'),
  async (runId, text) => {
    if (text.trim() === '' || text.length > 2000) throw new CliError('a directive is 1-2000 characters', EXIT.usage);
    const runs = new ResearchRuns(await runtime.client(runtime.config()));
    const run = await existingRun(runs, runId);
    if (run.status !== 'RUNNING') throw finishedRun(run);
    try {
      await runs.directive(runId, text, 'cli');
    } catch (error) {
      // The run may have ended between the look and the signal.
      const after = await runs.describe(runId);
      throw after && after.status !== 'RUNNING' ? finishedRun(after) : error;
    }
    out(`directive sent to research run ${run.runId} (${run.workflowId})`);
    return EXIT.ok;
  },
);
