import type { Client } from '@temporalio/client';
import type { AgentStatus } from '../core/agent/agent';
import { agentWorkflowId } from '../common/ids';
import { type ExecutionBuild, buildName, workflowBuild } from '../clients/deployments';

// The lines `status` adds when there is something to say: calls of unknown outcome, memory, archives, builds.

/** Calls that may or may not have taken effect, each with the key to check by before it is repeated. */
export function unknownOutcomeLines(status: AgentStatus): string[] {
  const calls = status.unknownOutcomes ?? [];
  if (calls.length === 0) return [];
  return [
    `outcome unknown: ${calls.length} call(s) may or may not have taken effect; check each key before repeating it`,
    ...calls.map((call) => `  ${call.tool} in ${call.cycleId} (iteration ${call.iteration}): key ${call.key}`),
  ];
}

/** How long the memory has gone unchanged, when the agent records it. */
export function memoryLines(status: AgentStatus): string[] {
  const turns = status.turnsSinceMemoryChanged;
  if (turns === undefined) return [];
  if (turns === 0) return ['memory: changed by the last cycle'];
  const why = status.lastNoUpdate ? ` (last: ${status.lastNoUpdate})` : '';
  return [`memory: unchanged for ${turns} cycle(s)${why}`];
}

/** The archives the last cycle could not read back, with what to do about it. */
export function missingArchiveLines(status: AgentStatus): string[] {
  const ids = status.missingArchives ?? [];
  if (ids.length === 0) return [];
  return [
    `archived memory missing: ${ids.join(', ')}: the worker's observation store does not hold these entries. ` +
      "Point every worker at the store that archived them (SCRATCHPAD_OBSERVATIONS, the plugin's observations " +
      'option; one redis://… for workers on several hosts); the memory keeps its pointers until then.',
  ];
}

/** The builds an agent and its running cycles are on; none for an unversioned agent. */
export interface StatusBuilds {
  agent?: ExecutionBuild;
  cycles: (ExecutionBuild & { cycleId: string })[];
}

/** Where the agent and each running cycle run, when their workers are versioned (SCRATCHPAD_DEPLOYMENT). */
export async function statusBuilds(
  client: Client,
  agentId: string,
  running: string[],
): Promise<StatusBuilds | undefined> {
  const agent = await workflowBuild(client, agentWorkflowId(agentId));
  const cycles = [];
  for (const cycleId of running) {
    const build = await workflowBuild(client, cycleId);
    if (build) cycles.push({ ...build, cycleId });
  }
  return agent || cycles.length > 0 ? { agent, cycles } : undefined;
}

function onBuild(build: ExecutionBuild): string {
  const how = build.behavior === 'pinned' ? 'pinned: finishes there' : 'moves to each build made current';
  return `${buildName(build)} (${how})`;
}

/** Which build serves the agent and which its running cycles. */
export function buildLines(builds: StatusBuilds | undefined): string[] {
  if (!builds) return [];
  return [
    ...(builds.agent ? [`build: the agent runs on ${onBuild(builds.agent)}`] : []),
    ...builds.cycles.map((cycle) => `  ${cycle.cycleId} runs on ${onBuild(cycle)}`),
  ];
}
