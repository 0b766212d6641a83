/**
 * Workflow and schedule ids, built and parsed in one place: the CLI, the client, schedules and workflows
 * all name the same executions, and visibility queries depend on the shapes staying in step.
 */

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const CYCLE_ID = /^agent\/(.+)\/cycle\/(\d+)$/;
const SCHEDULE_ID = /^agent\/([^/]+)\/schedule\/([^/]+)$/;

/** Agent ids become workflow ids and file names: letters, digits, `.`, `_` and `-`. */
export function validateAgentId(agentId: string): string | undefined {
  return AGENT_ID.test(agentId)
    ? undefined
    : `invalid agent id "${agentId}": use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit`;
}

/** `agent/<agentId>`: the agent's durable home. */
export function agentWorkflowId(agentId: string): string {
  return `agent/${agentId}`;
}

/** `agent/<agentId>/cycle/<n>`: the agent's n-th cycle. */
export function cycleWorkflowId(agentId: string, n: number): string {
  return `agent/${agentId}/cycle/${n}`;
}

/** Splits `agent/<agentId>/cycle/<n>`; undefined for any other id. */
export function parseCycleWorkflowId(workflowId: string): { agentId: string; n: number } | undefined {
  const match = CYCLE_ID.exec(workflowId);
  return match ? { agentId: match[1] as string, n: Number(match[2]) } : undefined;
}

/** The name an agent's schedule gets when none is given. */
export const DEFAULT_SCHEDULE_NAME = 'default';

/** `agent/<agentId>/schedule/<name>`: the id of one of an agent's schedules. */
export function agentScheduleId(agentId: string, name: string): string {
  return `agent/${agentId}/schedule/${name}`;
}

/** Splits `agent/<agentId>/schedule/<name>`; undefined for any other id. */
export function parseAgentScheduleId(scheduleId: string): { agentId: string; name: string } | undefined {
  const match = SCHEDULE_ID.exec(scheduleId);
  return match ? { agentId: match[1] as string, name: match[2] as string } : undefined;
}

const STAGED_ID = /^staged\/([^/]+)\/(\d+)$/;

/** `staged/<agentId>/<n>`: the agent's n-th staged run (design.md, Staged runs). */
export function stagedWorkflowId(agentId: string, n: number): string {
  return `staged/${agentId}/${n}`;
}

/** Splits `staged/<agentId>/<n>`; undefined for any other id (a stage's cycle included). */
export function parseStagedWorkflowId(workflowId: string): { agentId: string; n: number } | undefined {
  const match = STAGED_ID.exec(workflowId);
  return match ? { agentId: match[1] as string, n: Number(match[2]) } : undefined;
}

/** `staged/<agentId>/<n>/<label>`: one stage's cycle of a staged run, e.g. `stage-2`, `repair-1`, `stage-2-retry-1`. */
export function stageCycleId(stagedId: string, label: string): string {
  return `${stagedId}/${label}`;
}

const RESEARCH_ID = /^research\/([^/]+)$/;

/** `research/<runId>`: a research run's supervisor, which holds the board. */
export function researchWorkflowId(runId: string): string {
  return `research/${runId}`;
}

/** `research/<runId>/worker/<n>`: the run's n-th worker. */
export function researchWorkerId(runId: string, n: number): string {
  return `research/${runId}/worker/${n}`;
}

/** `research/<runId>/worker/<n>/cycle`: the worker's investigation, a child cycle; its sub-agents nest under it. */
export function researchInvestigationId(workerId: string): string {
  return `${workerId}/cycle`;
}

/**
 * True when an observation stored under `turnId` comes from this worker's investigation: the worker itself (before
 * investigations were cycles), its cycle, or that cycle's own sub-agents, nobody else's.
 */
export function isWorkerObservation(turnId: string, workerId: string): boolean {
  const cycleId = researchInvestigationId(workerId);
  return turnId === workerId || turnId === cycleId || turnId.startsWith(`${cycleId}/sub/`);
}

/** The run id of `research/<runId>`; undefined for any other id. */
export function parseResearchWorkflowId(workflowId: string): string | undefined {
  return RESEARCH_ID.exec(workflowId)?.[1];
}

/** `<parentCycleId>/sub/<n>`: the n-th sub-agent a cycle spawned; nests for deeper ones (design.md, Sub-agents). */
export function subagentCycleId(parentCycleId: string, n: number): string {
  return `${parentCycleId}/sub/${n}`;
}
