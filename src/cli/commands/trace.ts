import * as fs from 'node:fs/promises';
import { Agents } from '../../clients/agents';
import { requireAgent } from '../agent-access';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

/** `scratchpad trace AGENT --out FILE`: one record per cycle, read from the cycles' histories; `-` for stdout. */
export default defineCommand(
  (command) =>
    command.argument('<agent>', 'agent id').requiredOption('--out <file>', 'JSON file to write, or - for stdout'),
  async (agentId, options) => {
    const agents = new Agents(await runtime.client(runtime.config()));
    await requireAgent(agents.client, agentId, { orAnyRun: true });
    const turns = [];
    for (const cycle of await agents.listCycles(agentId)) {
      const states = await agents.cycleStates(cycle.workflowId, cycle.runId);
      turns.push({
        turn: cycle.n,
        cycleId: cycle.workflowId,
        trigger: states.input.trigger,
        input: states.input.kind === 'chat' ? states.input.message : states.input.before.current_task,
        response: states.result?.reply ?? null,
        outcome: states.result?.outcome ?? cycle.status.toLowerCase(),
        usage: states.result?.usage ?? null,
        directives: states.result?.directives ?? [],
        unknown_outcomes: states.result?.unknownOutcomes ?? [],
        missing_archives: states.result?.missingArchives ?? [],
        scratchpad_before: states.input.before,
        scratchpad_after: states.result?.after ?? null,
      });
    }
    if (turns.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
    const text = `${JSON.stringify(turns, null, 2)}\n`;
    if (options.out === '-') {
      process.stdout.write(text);
      return EXIT.ok;
    }
    await fs.writeFile(options.out, text);
    process.stdout.write(`Wrote ${turns.length} turn(s) to ${options.out}\n`);
    return EXIT.ok;
  },
);
