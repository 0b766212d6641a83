import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { AgentInput } from '../core/agent/agent';
import { type SectionDiff, memoryDiff } from '../core/agent/memory-diff';
import type { Origin, RewindRecord } from '../core/agent/time-travel';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { agentWorkflowId, cycleWorkflowId, parseCycleWorkflowId, validateAgentId } from '../common/ids';
import { agentIdKey } from '../common/search-attributes';
import type { AgentWorkflow } from '../common/workflow-types';
import { type AgentTarget, Agents, type CycleSummary } from './agents';
import { agentSettingsFromHistory, fetchHistory } from './histories';

/*
 * Memory time travel (design.md, Time travel): every state an agent's scratchpad was in is in its cycles' histories,
 * so diff, fork and rewind read it from there. None runs a cycle or calls a model.
 */

/** A request time travel cannot serve: an unknown agent or cycle, a cycle not finished, a name taken. */
export class TimeTravelError extends Error {
  override readonly name = 'TimeTravelError';
}

/** One cycle's state as its history holds it. */
export interface CycleState {
  agentId: string;
  n: number;
  cycleId: string;
  /** `before`: the state the cycle started from; `after`: its result. */
  state: 'before' | 'after';
  scratchpad: Scratchpad;
}

/** A cycle as the commands name it: its number, or its workflow id `agent/<agentId>/cycle/<n>`. */
export type CycleRef = number | string;

function cycleNumber(agentId: string, ref: CycleRef): number {
  const text = String(ref).trim();
  const parsed = parseCycleWorkflowId(text);
  if (parsed && parsed.agentId !== agentId) {
    throw new TimeTravelError(`cycle ${text} is not a cycle of agent "${agentId}"`);
  }
  const n = parsed ? parsed.n : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new TimeTravelError(`invalid cycle "${text}": give its number (1, 2, …) or its id agent/${agentId}/cycle/N`);
  }
  return n;
}

/** The agent's cycles, oldest first; an agent with none that was never started is unknown. */
async function cyclesOf(agents: Agents, agentId: string): Promise<CycleSummary[]> {
  const problem = validateAgentId(agentId);
  if (problem) throw new TimeTravelError(problem);
  const cycles = await agents.listCycles(agentId);
  if (cycles.length === 0 && !(await agents.describe(agentId))) throw new TimeTravelError(`unknown agent "${agentId}"`);
  return cycles;
}

/** Cycle `ref` of the agent in state `which`, read from its history; refuses a cycle that has not finished. */
export async function cycleState(
  agents: Agents,
  agentId: string,
  ref: CycleRef,
  which: 'before' | 'after',
  cycles?: CycleSummary[],
): Promise<CycleState> {
  const n = cycleNumber(agentId, ref);
  const known = cycles ?? (await cyclesOf(agents, agentId));
  // A cycle id that was run twice (a terminated cycle started again) counts by its latest run.
  const cycle = known.filter((entry) => entry.n === n).at(-1);
  const cycleId = cycleWorkflowId(agentId, n);
  if (!cycle) {
    const range = known.length > 0 ? `its cycles are 1 to ${Math.max(...known.map((entry) => entry.n))}` : 'none yet';
    throw new TimeTravelError(`agent "${agentId}" has no cycle ${n} (${range})`);
  }
  const states = await agents.cycleStates(cycle.workflowId, cycle.runId);
  if (which === 'before') return { agentId, n, cycleId, state: which, scratchpad: states.input.before };
  if (!states.result) {
    const status = cycle.status === 'RUNNING' ? 'it is still running' : `it ended ${cycle.status.toLowerCase()}`;
    throw new TimeTravelError(`${cycleId} has not finished (${status}): it has no after-state`);
  }
  return { agentId, n, cycleId, state: which, scratchpad: states.result.after };
}

/** Two states of an agent's memory and, section by section, the lines between them. */
export interface MemoryDiff {
  agentId: string;
  from: Omit<CycleState, 'scratchpad'>;
  to: Omit<CycleState, 'scratchpad'>;
  sections: SectionDiff[];
}

/**
 * `scratchpad diff`: the memory after cycle `a` against after cycle `b`; with no `b`, cycle `a`'s before-state
 * against its after-state. From histories: no worker, no model.
 */
export async function diffCycles(client: Client, agentId: string, a: CycleRef, b?: CycleRef): Promise<MemoryDiff> {
  const agents = new Agents(client);
  const cycles = await cyclesOf(agents, agentId);
  const from = await cycleState(agents, agentId, a, b === undefined ? 'before' : 'after', cycles);
  const to = await cycleState(agents, agentId, b ?? a, 'after', cycles);
  const { scratchpad: before, ...fromPoint } = from;
  const { scratchpad: after, ...toPoint } = to;
  return { agentId, from: fromPoint, to: toPoint, sections: memoryDiff(before, after) };
}

/** What `forkAgent` started. */
export interface Fork {
  agentId: string;
  workflowId: string;
  origin: Origin;
  taskQueue: string;
  handle: WorkflowHandle<AgentWorkflow>;
}

/**
 * `scratchpad fork`: starts agent `as` with the after-state of `agentId`'s cycle `at` as its memory, the source's
 * settings (as its current run's history leaves them), and `{agent, cycle}` as its origin. It runs on the source's
 * task queue unless `taskQueue` is given. Refuses a name any workflow has used: its cycle ids would collide.
 */
export async function forkAgent(
  client: Client,
  options: { agentId: string; at: CycleRef; as: string; taskQueue?: string },
): Promise<Fork> {
  const agents = new Agents(client);
  const problem = validateAgentId(options.as);
  if (problem) throw new TimeTravelError(problem);
  const source = await cycleState(agents, options.agentId, options.at, 'after');
  if (await agents.describe(options.as)) {
    throw new TimeTravelError(`agent "${options.as}" already exists: fork under a new name`);
  }
  const described = await agents.describe(options.agentId);
  const taskQueue = options.taskQueue ?? described?.taskQueue;
  if (!taskQueue) throw new TimeTravelError(`agent "${options.agentId}" has no workflow to take a task queue from`);
  const settings = agentSettingsFromHistory(await fetchHistory(client, agentWorkflowId(options.agentId)));
  const origin: Origin = { agent: options.agentId, cycle: source.n };
  const input: AgentInput = { agentId: options.as, scratchpad: source.scratchpad, settings, origin };
  const workflowId = agentWorkflowId(options.as);
  try {
    const handle = await client.workflow.start<AgentWorkflow>('agent', {
      workflowId,
      taskQueue,
      args: [input],
      typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: options.as }]),
      staticSummary: `agent ${options.as} (fork of ${options.agentId} at cycle ${source.n})`,
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return { agentId: options.as, workflowId, origin, taskQueue, handle };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      throw new TimeTravelError(`agent "${options.as}" already exists: fork under a new name`);
    }
    throw error;
  }
}

/**
 * `scratchpad rewind`: the agent adopts its cycle `to`'s after-state, read here from that cycle's history, through
 * the `rewind` update, which records `{to, at, by}` and is refused while a cycle runs. Later cycles stay in history;
 * the next cycle continues the count.
 */
export async function rewindAgent(
  agents: Agents,
  target: AgentTarget,
  to: CycleRef,
  by: string,
): Promise<RewindRecord> {
  const point = await cycleState(agents, target.agentId, to, 'after');
  return agents.rewind(target, { to: point.n, state: point.scratchpad, by });
}
