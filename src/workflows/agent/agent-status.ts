import {
  type AgentSettings,
  type AgentStatus,
  type CycleRecord,
  turnsSinceMemoryChanged,
  unknownOutcomesOf,
} from '../../core/agent/agent';
import { totalCost } from '../../core/cycle/cost';
import { oldestWithin } from '../../core/payload';
import { type Usage, totalUsage } from '../../core/cycle/model';
import type { RunningCycle } from './child-cycle';
import type { TimeTravel } from './time-travel';

/** The parts of an agent's home its status reads. */
export interface StatusSource {
  agentId: string;
  cycleCount: number;
  settings: AgentSettings;
  runs: number;
  heldDirectives: readonly string[];
  usageByModel: Record<string, Usage>;
  notices: readonly string[];
  travel: TimeTravel;
  cycles: readonly CycleRecord[];
}

/** The `status` query's answer: copies, so what a caller does with it never reaches the workflow's state. */
export function agentStatus(home: StatusSource, running: RunningCycle | null, queued: number): AgentStatus {
  const { agentId, cycleCount, settings, runs } = home;
  return {
    agentId,
    cycleCount,
    running: running && { cycleId: running.cycleId, trigger: running.trigger },
    queued,
    heldDirectives: [...home.heldDirectives],
    usage: totalUsage(home.usageByModel),
    costUsd: totalCost(home.usageByModel),
    settings,
    runs,
    notices: [...home.notices],
    ...home.travel.status(),
    ...fallbackStatus(home.cycles),
    ...memoryStatus(home.cycles),
    ...missingArchives(home.cycles),
    ...unknownStatus(home.cycles),
  };
}

function unknownStatus(cycles: readonly CycleRecord[]): Pick<AgentStatus, 'unknownOutcomes'> {
  const unknownOutcomes = unknownOutcomesOf(cycles);
  return unknownOutcomes.length > 0 ? { unknownOutcomes } : {};
}

/** The model that answered the newest cycle's last call, when it was a fallback; a cancelled cycle says nothing. */
function fallbackStatus(cycles: readonly CycleRecord[]): Pick<AgentStatus, 'fallbackModel'> {
  const last = [...cycles].reverse().find((record) => record.outcome !== 'cancelled');
  return last?.fallbackModel ? { fallbackModel: last.fallbackModel } : {};
}

/** How long the memory has gone unchanged, and why the last turn's reflect made no update while it has. */
function memoryStatus(cycles: readonly CycleRecord[]): Pick<AgentStatus, 'turnsSinceMemoryChanged' | 'lastNoUpdate'> {
  const turns = turnsSinceMemoryChanged(cycles);
  const why = turns > 0 ? [...cycles].reverse().find((record) => record.memoryChanged === false)?.noUpdate : undefined;
  return { turnsSinceMemoryChanged: turns, ...(why ? { lastNoUpdate: why } : {}) };
}

/** What the newest cycle that ran found missing of the memory's archives (a later cycle that found all clears it). */
function missingArchives(cycles: readonly CycleRecord[]): Pick<AgentStatus, 'missingArchives'> {
  const last = [...cycles].reverse().find((record) => record.outcome !== 'cancelled');
  return last?.missingArchives?.length ? { missingArchives: [...last.missingArchives] } : {};
}

/** Held directives the status memo shows, oldest first: their full text is the `status` query's. */
const MEMO_DIRECTIVES_BYTES = 16 * 1024;

/**
 * The status as the agent's memo carries it, for readers with no worker: the held directives cut to a small budget
 * (a hundred of them could weigh 200 KB), the rest as the query answers it.
 */
export function statusMemo(status: AgentStatus): AgentStatus {
  return { ...status, heldDirectives: oldestWithin(status.heldDirectives, MEMO_DIRECTIVES_BYTES) };
}
