import { forkAgent } from '../../clients/time-travel';
import { cycleWorkflowId } from '../../common/ids';
import { agentContext, requireAgent } from '../agent-access';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import * as runtime from '../runtime';
import { travel } from '../time-travel-errors';

/** `scratchpad fork AGENT --at CYCLE --as NEW`: a new agent whose memory is that cycle's after-state. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .requiredOption('--at <cycle>', 'the cycle (number or id) whose after-state the new agent starts from')
      .requiredOption('--as <agent>', 'the new agent id (not used before)')
      .option('--json', 'print the new agent, its origin and task queue as JSON'),
  async (agentId, options) => {
    const { config } = await agentContext(agentId);
    await agentContext(options.as);
    const client = await runtime.client(config);
    await requireAgent(client, agentId, { orAnyRun: true });
    const fork = await travel(() => forkAgent(client, { agentId, at: options.at, as: options.as }));
    const { handle: _handle, ...shown } = fork;
    if (options.json) {
      process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    } else {
      const cycleId = cycleWorkflowId(agentId, fork.origin.cycle);
      process.stdout.write(
        `Forked ${fork.workflowId} from ${cycleId}'s after-state (task queue "${fork.taskQueue}"); ` +
          `\`scratchpad export ${fork.agentId}\` records its origin.\n`,
      );
    }
    return EXIT.ok;
  },
);
