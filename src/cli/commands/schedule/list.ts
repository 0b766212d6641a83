import { listAgentSchedules } from '../../../clients/schedules';
import { validateAgentId } from '../../../common/ids';
import { defineCommand } from '../../command';
import { CliError, EXIT } from '../../errors';
import { formatRow, withClient } from '../../schedules';

/** `scratchpad schedule list [AGENT]`: id, spec, next run, paused, recent actions. */
export default defineCommand(
  (command) => command.argument('[agent]', 'only this agent').option('--json', 'print JSON'),
  async (agentId, options) => {
    const problem = agentId === undefined ? undefined : validateAgentId(agentId);
    if (problem) throw new CliError(problem, EXIT.usage);
    const rows = await withClient((client) => listAgentSchedules(client, agentId));
    if (options.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0)
      process.stdout.write(agentId ? `No schedules for agent "${agentId}".\n` : 'No schedules.\n');
    else process.stdout.write(`${rows.map(formatRow).join('\n')}\n`);
    return EXIT.ok;
  },
);
