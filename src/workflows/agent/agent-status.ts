import type { AgentSettings, AgentStatus } from '../../core/agent/agent';
import { totalCost } from '../../core/cycle/cost';
import { type Usage, totalUsage } from '../../core/cycle/model';
import type { ChildCycle } from './child-cycle';
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
}

/** The `status` query's answer: copies, so what a caller does with it never reaches the workflow's state. */
export function agentStatus(home: StatusSource, running: ChildCycle | null, queued: number): AgentStatus {
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
  };
}
