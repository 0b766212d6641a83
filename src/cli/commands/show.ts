import { Option } from '@commander-js/extra-typings';
import { agentMemory } from '../../clients/agent-overview';
import { Agents } from '../../clients/agents';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { parseCycleWorkflowId } from '../../common/ids';
import { requireAgent } from '../agent-access';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import { formatScratchpad } from '../format';
import { FORMATS, STATES, type StateName } from '../options';
import * as runtime from '../runtime';

// Reads memos and histories only: no worker, no model.

async function cycleState(agents: Agents, workflowId: string, which: StateName | undefined): Promise<Scratchpad> {
  const description = await agents.describeCycle(workflowId).catch(() => {
    throw new CliError(`no cycle workflow "${workflowId}"`);
  });
  const states = await agents.cycleStates(workflowId);
  const running = description.status.name === 'RUNNING';
  const state = which ?? (running ? 'current' : 'after');
  if (state === 'before') return states.input.before;
  if (states.result) return states.result.after;
  if (state === 'after')
    throw new CliError(`${workflowId} has not finished (${description.status.name}); try --state current`);
  // The live scratchpad exists only in the running workflow: ask it.
  return agents.currentScratchpad(workflowId);
}

async function agentState(agents: Agents, agentId: string, which: StateName | undefined): Promise<Scratchpad> {
  const cycles = await agents.listCycles(agentId);
  if (cycles.length === 0 && which !== undefined && which !== 'after') {
    throw new CliError(`no cycles found for agent "${agentId}"`);
  }
  const running = cycles.filter((cycle) => cycle.status === 'RUNNING').at(-1);
  if (which === 'current' && running) return cycleState(agents, running.workflowId, 'current');
  if (which === 'before') return cycleState(agents, (cycles.at(-1) as { workflowId: string }).workflowId, 'before');
  // The agent workflow's memo is its active scratchpad (what active.yaml holds), readable with no worker.
  const memo = await agents.memo(agentId);
  if (memo) return memo.scratchpad;
  // Before a worker first runs the agent (a fork, say), its memory is what it started with.
  return (await agentMemory(agents.client, { agentId, memo: {} })).scratchpad;
}

/** `scratchpad show`: an agent's active scratchpad, or a cycle's before / after / live state. */
export default defineCommand(
  (command) =>
    command
      .argument('<id>', 'agent id, or a cycle workflow id like agent/<id>/cycle/<n>')
      .addOption(new Option('--state <which>', 'before, after or current').choices(STATES))
      .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('yaml')),
  async (id, options) => {
    const format = options.format;
    const agents = new Agents(await runtime.client(runtime.config()));
    if (!parseCycleWorkflowId(id)) await requireAgent(agents.client, id);
    const state = parseCycleWorkflowId(id)
      ? await cycleState(agents, id, options.state)
      : await agentState(agents, id, options.state);
    process.stdout.write(formatScratchpad(state, format));
    return EXIT.ok;
  },
);
