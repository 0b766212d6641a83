import { type MemoryDiff, diffCycles } from '../../clients/time-travel';
import { agentContext, requireAgent } from '../agent-access';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import * as runtime from '../runtime';
import { travel } from '../time-travel-errors';

/** The diff as people read it: a heading line, then each changed part with its lines, `-` removed and `+` added. */
export function formatDiff(diff: MemoryDiff): string {
  const { from, to, sections } = diff;
  const added = sections.reduce((sum, part) => sum + part.changes.filter((line) => line.op === '+').length, 0);
  const removed = sections.reduce((sum, part) => sum + part.changes.filter((line) => line.op === '-').length, 0);
  const heading = `${from.cycleId} ${from.state} → ${to.cycleId} ${to.state}`;
  if (sections.length === 0) return `${heading}: no change\n`;
  const summary = `${sections.length} part(s) changed, ${added} line(s) added, ${removed} removed`;
  const parts = sections.map(({ section, part, changes }) =>
    [`## ${part ? `${section} / ${part}` : section}`, ...changes.map((line) => `${line.op} ${line.text}`)].join('\n'),
  );
  return `${heading}: ${summary}\n\n${parts.join('\n\n')}\n`;
}

/** `scratchpad diff AGENT A [B]`: from histories alone; no worker, no model. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .argument('<a>', 'a cycle (number or id); alone: its before-state against its after-state')
      .argument('[b]', 'another cycle: the after-state of <a> against the after-state of <b>')
      .option('--json', 'print the changed parts and their lines as JSON'),
  async (agentId, a, b, options) => {
    const { config } = await agentContext(agentId);
    const client = await runtime.client(config);
    await requireAgent(client, agentId, { orAnyRun: true });
    const diff = await travel(() => diffCycles(client, agentId, a, b));
    process.stdout.write(options.json ? `${JSON.stringify(diff, null, 2)}\n` : formatDiff(diff));
    return EXIT.ok;
  },
);
