import * as os from 'node:os';
import { Agents } from '../../clients/agents';
import { rewindAgent } from '../../clients/time-travel';
import { agentWorkflowId } from '../../common/ids';
import { agentContext, onAgentQueue, requireAgent } from '../agent-access';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import { WORKER_MODEL } from '../options';
import * as runtime from '../runtime';
import { travel } from '../time-travel-errors';

/** Who rewinds, as the agent records it: the user and host of this command. */
function rewoundBy(): string {
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    return `scratchpad rewind@${os.hostname()}`;
  }
}

/** `scratchpad rewind AGENT --to CYCLE`: the agent continues from that cycle's after-state; refused while one runs. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .requiredOption('--to <cycle>', 'the cycle (number or id) whose after-state the agent continues from')
      .option('--json', 'print the recorded rewind as JSON'),
  async (agentId, options) => {
    const context = await agentContext(agentId);
    const client = await runtime.client(context.config);
    await requireAgent(client, agentId, { orAnyRun: true });
    const spec = runtime.inProcessModel(context.config, options.model);
    const agents = new Agents(client);
    const { config, target } = await onAgentQueue(agents, context.config, context.target);
    const record = await runtime.withWorker(client, config, spec, agentWorkflowId(agentId), () =>
      runtime.unwrapUpdateErrors(() => travel(() => rewindAgent(agents, target, options.to, rewoundBy()))),
    );
    if (options.json) {
      process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    } else {
      process.stdout.write(
        `Rewound ${agentWorkflowId(agentId)} to cycle ${record.to}'s after-state (recorded at ${record.at} ` +
          `by ${record.by}); later cycles stay in history.\n`,
      );
    }
    return EXIT.ok;
  },
);
