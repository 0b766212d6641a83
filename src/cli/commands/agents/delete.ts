import { endAgent, purgeObservations } from '../../../clients/agent-removal';
import { agentWorkflowId } from '../../../common/ids';
import { requireAgent } from '../../agent-access';
import { defineCommand } from '../../command';
import { EXIT } from '../../errors';
import * as runtime from '../../runtime';

/**
 * `scratchpad agents delete AGENT [--purge]`: ends the agent (its schedules, its workflow and everything of it that
 * runs), and with `--purge` deletes its stored observations. Asks nothing; prints what it did.
 */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option('--purge', 'also delete its stored observations (SCRATCHPAD_OBSERVATIONS); histories stay'),
  async (agentId, options) => {
    const config = runtime.config();
    const client = await runtime.client(config);
    await requireAgent(client, agentId, { orAnyRun: true });
    const ended = await endAgent(client, agentId, 'deleted with `scratchpad agents delete`');
    const lines = [
      ...ended.schedules.map((scheduleId) => `Deleted schedule ${scheduleId}.`),
      ...ended.terminated.map((workflowId) => `Terminated ${workflowId}.`),
    ];
    if (ended.terminated.length === 0) lines.push(`Nothing of ${agentId} was running.`);
    if (options.purge) {
      const removed = await purgeObservations(config.observations, agentId);
      // A Redis URL may carry a password: name the kind of store only.
      const store = /^rediss?:/i.test(config.observations) ? 'the Redis observation store' : config.observations;
      lines.push(`Deleted ${removed} stored observation(s) of ${agentId} from ${store}.`);
    } else {
      lines.push(
        `Its histories stay (show, export and trace read them); \`--purge\` also deletes its stored observations.`,
      );
    }
    lines.push(
      `${agentWorkflowId(agentId)} is ended; \`scratchpad send ${agentId} TEXT\` would start it again from its memory.`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
);
