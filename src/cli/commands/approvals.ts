import { Approvals } from '../../clients/approvals';
import { validateAgentId } from '../../common/ids';
import { approvalsTable } from '../approval-calls';
import { defineCommand } from '../command';
import { pendingOf } from '../decisions';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

/** `scratchpad approvals [AGENT] [--json]`: every call waiting for a decision, found through visibility. */
export default defineCommand(
  (command) => command.argument('[agent]', "only this agent's calls").option('--json', 'print as JSON'),
  async (agentId, options) => {
    if (agentId !== undefined) {
      const problem = validateAgentId(agentId);
      if (problem) throw new CliError(problem, EXIT.usage);
    }
    const approvals = new Approvals(await runtime.client(runtime.config()));
    const calls = agentId === undefined ? await approvals.list() : await pendingOf(approvals, agentId);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(calls, null, 2)}\n`);
      return EXIT.ok;
    }
    if (calls.length === 0) {
      process.stdout.write(`No tool call${agentId === undefined ? '' : ` of ${agentId}`} is waiting for a decision.\n`);
      return EXIT.ok;
    }
    process.stdout.write(
      `${approvalsTable(calls)}\n\nDecide with: scratchpad approve TARGET CALL [--args JSON] | scratchpad deny TARGET CALL [--reason TEXT]\n`,
    );
    return EXIT.ok;
  },
);
