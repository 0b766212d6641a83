import { ResearchRuns } from '../../../clients/research-runs';
import { entryLine } from '../../../core/research/render';
import { defineCommand } from '../../command';
import { EXIT } from '../../errors';
import { existingRun, out } from '../../research-runs';
import * as runtime from '../../runtime';

/** `research board RUN`: the board, one line per entry, or JSON. */
export default defineCommand(
  (command) =>
    command
      .argument('<run>', 'run id, with or without research/ (research/run-1 or run-1)')
      .option('--json', 'print as JSON'),
  async (runId, options) => {
    const runs = new ResearchRuns(await runtime.client(runtime.config()));
    await existingRun(runs, runId);
    const board = await runs.board(runId);
    out(options.json ? JSON.stringify(board, null, 2) : board.map(entryLine).join('\n'));
    return EXIT.ok;
  },
);
