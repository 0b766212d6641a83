import type { Client } from '@temporalio/client';
import { agentMemo } from '../../clients/agents';
import { activeScratchpad, listCycles } from '../../clients/connection';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { cycleStatesFromHistory } from '../../clients/snapshots';
import { CliError, EXIT } from '../errors';
import { type Format, formatScratchpad } from '../format';
import * as runtime from '../runtime';
import { parseCycleWorkflowId } from '../../common/ids';
import { currentQuery } from '../../common/messages/cycle';

export const STATES = ['before', 'after', 'current'] as const;
export type StateName = (typeof STATES)[number];

async function cycleState(client: Client, workflowId: string, which: StateName | undefined): Promise<Scratchpad> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe().catch(() => {
    throw new CliError(`no cycle workflow "${workflowId}"`);
  });
  const states = cycleStatesFromHistory(await handle.fetchHistory());
  const running = description.status.name === 'RUNNING';
  const state = which ?? (running ? 'current' : 'after');
  if (state === 'before') return states.input.before;
  if (states.result) return states.result.after;
  if (state === 'after')
    throw new CliError(`${workflowId} has not finished (${description.status.name}); try --state current`);
  // The live scratchpad exists only in the running workflow: ask it.
  return handle.query(currentQuery);
}

async function agentState(client: Client, agentId: string, which: StateName | undefined): Promise<Scratchpad> {
  const cycles = await listCycles(client, agentId);
  if (cycles.length === 0 && which !== undefined && which !== 'after') {
    throw new CliError(`no cycles found for agent "${agentId}"`);
  }
  const running = cycles.filter((cycle) => cycle.status === 'RUNNING').at(-1);
  if (which === 'current' && running) return cycleState(client, running.workflowId, 'current');
  if (which === 'before') return cycleState(client, (cycles.at(-1) as { workflowId: string }).workflowId, 'before');
  // The agent workflow's memo is its active scratchpad (seed 000's active.yaml), readable with no worker.
  const memo = await agentMemo(client, agentId);
  if (memo) return memo.scratchpad;
  const active = await activeScratchpad(client, agentId);
  if (!active) throw new CliError(`agent "${agentId}" has no finished cycle yet`);
  return active.state;
}

/** `scratchpad show`: an agent's active scratchpad, or a cycle's before / after / live state. */
export async function showCommand(id: string, options: { state?: StateName; format: Format }): Promise<number> {
  if (options.state && !STATES.includes(options.state)) {
    throw new CliError(`invalid --state "${options.state}": expected one of ${STATES.join(', ')}`, EXIT.usage);
  }
  const config = runtime.config();
  const client = await runtime.client(config);
  const state = parseCycleWorkflowId(id)
    ? await cycleState(client, id, options.state)
    : await agentState(client, id, options.state);
  process.stdout.write(formatScratchpad(state, options.format));
  return EXIT.ok;
}
