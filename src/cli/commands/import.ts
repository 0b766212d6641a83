import { agentWorkflowId } from '../../common/ids';
import { withAgent } from '../agent-access';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import { readImport } from '../export-document';
import { WORKER_MODEL } from '../options';

/** `scratchpad import AGENT FILE`: replaces the agent's active scratchpad. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .argument('<file>', 'file written by export'),
  async (agentId, file, options) => {
    const scratchpad = await readImport(file);
    await withAgent(agentId, options.model, (agents, target) => agents.import(target, scratchpad), { create: true });
    process.stdout.write(`Imported ${file} into ${agentWorkflowId(agentId)}.\n`);
    return EXIT.ok;
  },
);
