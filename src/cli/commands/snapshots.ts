import { agentSnapshots, snapshotYaml, writeSnapshots } from '../../clients/snapshots';
import { requireAgent } from '../agent-access';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

/** `scratchpad snapshots AGENT --out DIR`: the snapshot files from the histories; `--out -`: one YAML stream. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .requiredOption('--out <dir>', 'directory to write, or - for one YAML stream on stdout'),
  async (agentId, options) => {
    const client = await runtime.client(runtime.config());
    await requireAgent(client, agentId, { orAnyRun: true });
    if (options.out === '-') {
      const snapshots = await agentSnapshots(client, agentId);
      if (snapshots.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
      process.stdout.write(snapshots.map(({ name, state }) => `--- # ${name}\n${snapshotYaml(state)}`).join(''));
      return EXIT.ok;
    }
    const files = await writeSnapshots(client, agentId, options.out);
    if (files.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
    process.stdout.write(`${files.join('\n')}\n`);
    return EXIT.ok;
  },
);
