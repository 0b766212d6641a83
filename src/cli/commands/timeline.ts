import { Option } from '@commander-js/extra-typings';
import { Agents } from '../../clients/agents';
import { replayTimeline } from '../../clients/timeline';
import { describeChanges } from '../../core/scratchpad/diff';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import { formatScratchpad } from '../format';
import { FORMATS } from '../options';
import * as runtime from '../runtime';
import { parseCycleWorkflowId } from '../../common/ids';

/** `scratchpad timeline CYCLE_ID`: the scratchpad after every iteration, by replaying the cycle's history. */
export default defineCommand(
  (command) =>
    command
      .argument('<cycleId>', 'cycle workflow id, agent/<id>/cycle/<n>')
      .option('--json', 'print every step as JSON')
      .addOption(new Option('--format <format>', 'also print the scratchpad after each step').choices(FORMATS)),
  async (cycleId, options) => {
    const { format } = options;
    if (!parseCycleWorkflowId(cycleId)) {
      throw new CliError(`"${cycleId}" is not a cycle workflow id (agent/<id>/cycle/<n>)`, EXIT.usage);
    }
    const agents = new Agents(await runtime.client(runtime.config()));
    const description = await agents.describeCycle(cycleId).catch(() => {
      throw new CliError(`no cycle workflow "${cycleId}"`);
    });
    if (description.status.name === 'RUNNING')
      throw new CliError(`${cycleId} is still running; use show --state current`);
    const history = await agents.cycleHistory(cycleId);
    await runtime.installWorkerLogger();
    const { steps } = await replayTimeline(history, cycleId);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(steps, null, 2)}\n`);
      return EXIT.ok;
    }
    for (const step of steps) {
      process.stdout.write(`── iteration ${step.iteration}: ${step.label}\n`);
      const changes = describeChanges(step.changes);
      process.stdout.write(changes.length ? `${changes.map((line) => `   ${line}`).join('\n')}\n` : '   (no change)\n');
      if (format) process.stdout.write(formatScratchpad(step.state, format));
    }
    return EXIT.ok;
  },
);
