import { type AgentOverview, listAgents } from '../../../clients/agent-overview';
import { defineCommand } from '../../command';
import { EXIT } from '../../errors';
import * as runtime from '../../runtime';

/** A time as people read it in a table: UTC to the second. */
function shortTime(time: Date): string {
  return `${time.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** In words: what the agent does now. */
function stateOf(agent: AgentOverview): string {
  if (agent.state !== 'RUNNING') return `ended (${agent.state.toLowerCase()})`;
  return agent.running.length > 0 ? `running ${agent.running.join(', ')}` : 'idle';
}

/** The rows as an aligned table, the last column unpadded. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n');
}

/** `scratchpad agents list`: every agent of the namespace, the most recently active first (no worker needed). */
export default defineCommand(
  (command) => command.option('--json', 'print as JSON'),
  async (options) => {
    const agents = await listAgents(await runtime.client(runtime.config()));
    if (options.json) {
      const shown = agents.map(({ memo: _memo, ...agent }) => ({
        ...agent,
        lastActive: agent.lastActive.toISOString(),
      }));
      process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      return EXIT.ok;
    }
    if (agents.length === 0) {
      process.stdout.write(
        'No agents yet: `scratchpad send AGENT TEXT` or `scratchpad cycle AGENT --task TEXT` starts one.\n',
      );
      return EXIT.ok;
    }
    const rows = agents.map((agent) => [
      agent.agentId,
      String(agent.cycleCount),
      agent.lastOutcome ?? '-',
      shortTime(agent.lastActive),
      agent.approvals.length > 0 ? `${agent.approvals.length} call(s)` : '-',
      stateOf(agent),
    ]);
    process.stdout.write(
      `${table([['AGENT', 'CYCLES', 'LAST OUTCOME', 'LAST ACTIVE', 'AWAITING APPROVAL', 'STATE'], ...rows])}\n`,
    );
    return EXIT.ok;
  },
);
