import { describeChanges } from '../../core/scratchpad/diff';
import { replayTimeline } from '../../clients/timeline';
import { CliError, EXIT } from '../errors';
import { type Format, formatScratchpad } from '../format';
import * as runtime from '../runtime';
import { parseCycleWorkflowId } from '../../common/ids';

/** `scratchpad timeline CYCLE_ID`: the scratchpad after every iteration, by replaying the cycle's history. */
export async function timelineCommand(cycleId: string, options: { json?: boolean; format?: Format }): Promise<number> {
  if (!parseCycleWorkflowId(cycleId)) {
    throw new CliError(`"${cycleId}" is not a cycle workflow id (agent/<id>/cycle/<n>)`, EXIT.usage);
  }
  const client = await runtime.client(runtime.config());
  const handle = client.workflow.getHandle(cycleId);
  const description = await handle.describe().catch(() => {
    throw new CliError(`no cycle workflow "${cycleId}"`);
  });
  if (description.status.name === 'RUNNING')
    throw new CliError(`${cycleId} is still running; use show --state current`);
  const { steps } = await replayTimeline(await handle.fetchHistory(), cycleId);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(steps, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const step of steps) {
    process.stdout.write(`── iteration ${step.iteration}: ${step.label}\n`);
    const changes = describeChanges(step.changes);
    process.stdout.write(changes.length ? `${changes.map((line) => `   ${line}`).join('\n')}\n` : '   (no change)\n');
    if (options.format) process.stdout.write(formatScratchpad(step.state, options.format));
  }
  return EXIT.ok;
}
