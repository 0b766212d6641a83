import { type Client, type ScheduleDescription, ScheduleOverlapPolicy } from '@temporalio/client';
import { agentScheduleId, parseAgentScheduleId } from '../common/ids';
import type { WakeAgentArgs, WorkflowTypes } from '../common/workflow-types';
import { agentIdKey } from '../common/search-attributes';
import { formatDuration } from '../core/duration';

const WAKE_WORKFLOW: keyof WorkflowTypes = 'scheduledWake';

/** When a schedule fires: every fixed interval, or on a cron expression. */
export type ScheduleTiming = { every: number } | { cron: string };

/** What `createAgentSchedule` needs; the agent id and name must already be valid. */
export interface AgentScheduleOptions {
  agentId: string;
  /** The queue the project's worker polls: it runs the wake and the agent. */
  taskQueue: string;
  name: string;
  timing: ScheduleTiming;
  tasks: string[];
}

/** What the schedule's memo records, so `list` shows the spec as it was given (cron is stored compiled). */
interface ScheduleMemo {
  agentId: string;
  name: string;
  spec: string;
  tasks: string[];
}

/** The human spelling of a timing: `every 5m` or `cron 0 * * * *`. */
export function describeTiming(timing: ScheduleTiming): string {
  return 'every' in timing ? `every ${formatDuration(timing.every)}` : `cron ${timing.cron}`;
}

/** Creates the Temporal Schedule whose action wakes the agent (`scheduledWake`), overlap policy skip. */
export async function createAgentSchedule(client: Client, options: AgentScheduleOptions): Promise<ScheduleDescription> {
  const { agentId, name, timing, tasks, taskQueue } = options;
  const scheduleId = agentScheduleId(agentId, name);
  const input: WakeAgentArgs = { agentId, taskQueue, tasks };
  const memo: ScheduleMemo = { agentId, name, spec: describeTiming(timing), tasks };
  const handle = await client.schedule.create({
    scheduleId,
    spec: 'every' in timing ? { intervals: [{ every: timing.every }] } : { cronExpressions: [timing.cron] },
    action: {
      type: 'startWorkflow',
      workflowType: WAKE_WORKFLOW,
      args: [input],
      taskQueue,
      workflowId: `${scheduleId}/wake`,
      typedSearchAttributes: [{ key: agentIdKey, value: agentId }],
      staticSummary: `wake ${agentId} (${memo.spec})`,
    },
    policies: {
      overlap: ScheduleOverlapPolicy.SKIP,
      // After an outage, one catch-up wake is enough: the agent's tasks are already queued in its memory.
      catchupWindow: '1m',
    },
    memo: { ...memo },
    typedSearchAttributes: [{ key: agentIdKey, value: agentId }],
  });
  return handle.describe();
}

/** One row of `schedule list`. */
export interface AgentScheduleInfo {
  scheduleId: string;
  agentId: string;
  spec: string;
  tasks: string[];
  paused: boolean;
  note?: string;
  nextRun?: Date;
  actionCount: number;
  recentActions: Date[];
}

function summarize(scheduleId: string, description: ScheduleDescription): AgentScheduleInfo {
  const memo = (description.memo ?? {}) as Partial<ScheduleMemo>;
  const every = description.spec.intervals?.[0]?.every;
  return {
    scheduleId,
    agentId: memo.agentId ?? parseAgentScheduleId(scheduleId)?.agentId ?? '',
    spec: memo.spec ?? (every !== undefined ? `every ${formatDuration(every)}` : 'calendar'),
    tasks: memo.tasks ?? [],
    paused: description.state.paused,
    ...(description.state.note ? { note: description.state.note } : {}),
    ...(description.info.nextActionTimes[0] ? { nextRun: description.info.nextActionTimes[0] } : {}),
    actionCount: description.info.numActionsTaken,
    recentActions: description.info.recentActions.map((action) => action.takenAt),
  };
}

/** The project's schedules (of one agent, or all), described afresh since visibility lags behind changes. */
export async function listAgentSchedules(client: Client, agentId?: string): Promise<AgentScheduleInfo[]> {
  const rows: AgentScheduleInfo[] = [];
  for await (const summary of client.schedule.list()) {
    const parsed = parseAgentScheduleId(summary.scheduleId);
    if (!parsed || (agentId !== undefined && parsed.agentId !== agentId)) continue;
    const description = await client.schedule
      .getHandle(summary.scheduleId)
      .describe()
      .catch(() => undefined);
    // Deleted between the listing and the describe.
    if (description) rows.push(summarize(summary.scheduleId, description));
  }
  return rows.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

/** Describes one schedule as a `list` row. */
export async function describeAgentSchedule(client: Client, scheduleId: string): Promise<AgentScheduleInfo> {
  return summarize(scheduleId, await client.schedule.getHandle(scheduleId).describe());
}

/** What `changeAgentSchedule` can do to a schedule. */
export type ScheduleChange = 'pause' | 'unpause' | 'trigger' | 'delete';

/** Pauses, unpauses, fires once or deletes one schedule; `note` says why a pause or unpause happened. */
export async function changeAgentSchedule(
  client: Client,
  scheduleId: string,
  change: ScheduleChange,
  note?: string,
): Promise<void> {
  const handle = client.schedule.getHandle(scheduleId);
  if (change === 'pause') await handle.pause(note);
  else if (change === 'unpause') await handle.unpause(note);
  else if (change === 'trigger') await handle.trigger();
  else await handle.delete();
}
