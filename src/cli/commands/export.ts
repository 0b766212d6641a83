import { agentMemory } from '../../clients/agent-overview';
import { overviewOf } from '../agent-access';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import { EXPORT_FORMAT } from '../export-document';

/** `scratchpad export AGENT`: the scratchpad and settings as JSON on stdout, in the form `import` reads. */
export default defineCommand(
  (command) => command.argument('<agent>', 'agent id'),
  async (agentId) => {
    const { agents, overview } = await overviewOf(agentId);
    const { scratchpad, settings, origin } = await agentMemory(agents.client, overview);
    const document = {
      format: EXPORT_FORMAT,
      agentId,
      exportedAt: new Date().toISOString(),
      turn: overview.memo.status?.cycleCount ?? (await agents.listCycles(agentId)).length,
      purpose: scratchpad.identity.purpose,
      settings,
      ...(origin ? { origin } : {}),
      scratchpad,
    };
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    return EXIT.ok;
  },
);
