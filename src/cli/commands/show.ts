import { Agents, writeSnapshots } from '../../client';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { CliError, EXIT } from '../errors';
import { formatScratchpad } from '../format';
import { STATES, type StateName, parseFormat } from '../options';
import * as runtime from '../runtime';
import { parseCycleWorkflowId } from '../../common/ids';

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
  const active = await agents.activeScratchpad(agentId);
  if (!active) throw new CliError(`agent "${agentId}" has no finished cycle yet`);
  return active.state;
}

/** `scratchpad show`: an agent's active scratchpad, or a cycle's before / after / live state. */
export async function showCommand(id: string, options: { state?: StateName; format: string }): Promise<number> {
  if (options.state && !STATES.includes(options.state)) {
    throw new CliError(`invalid --state "${options.state}": expected one of ${STATES.join(', ')}`, EXIT.usage);
  }
  const format = parseFormat(options.format);
  const agents = new Agents(await runtime.client(runtime.config()));
  const state = parseCycleWorkflowId(id)
    ? await cycleState(agents, id, options.state)
    : await agentState(agents, id, options.state);
  process.stdout.write(formatScratchpad(state, format));
  return EXIT.ok;
}

/** `scratchpad snapshots AGENT --out DIR`: the snapshot files, written from the agent's histories. */
export async function snapshotsCommand(agentId: string, options: { out: string }): Promise<number> {
  const client = await runtime.client(runtime.config());
  const files = await writeSnapshots(client, agentId, options.out);
  if (files.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
  process.stdout.write(`${files.join('\n')}\n`);
  return EXIT.ok;
}
