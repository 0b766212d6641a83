import { type Client, ScheduleAlreadyRunning, ScheduleNotFoundError } from '@temporalio/client';
import { type AgentScheduleInfo, type ScheduleChange, changeAgentSchedule } from '../clients/schedules';
import { parseAgentScheduleId } from '../common/ids';
import { CliError, EXIT } from './errors';
import * as runtime from './runtime';

// What the `schedule` commands share: one-line errors, the schedule id checked, a schedule as people read it.

export function checkedScheduleId(scheduleId: string): string {
  if (parseAgentScheduleId(scheduleId)) return scheduleId;
  throw new CliError(
    `invalid schedule id "${scheduleId}": expected agent/<agentId>/schedule/<name> (see \`scratchpad schedule list\`)`,
    EXIT.usage,
  );
}

/** Runs `work` with a client, turning the schedule client's errors into one-line CLI errors. */
export async function withClient<T>(work: (client: Client) => Promise<T>, scheduleId?: string): Promise<T> {
  const client = await runtime.client(runtime.config());
  try {
    return await work(client);
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) throw new CliError(`no schedule "${scheduleId ?? error.scheduleId}"`);
    if (error instanceof ScheduleAlreadyRunning) {
      throw new CliError(`schedule "${error.scheduleId}" already exists: pick another --name, or delete it first`);
    }
    throw error;
  }
}

export function formatRow(row: AgentScheduleInfo): string {
  const recent = row.recentActions.at(-1);
  return [
    row.scheduleId,
    `  spec:    ${row.spec}${row.tasks.length > 0 ? `, tasks: ${row.tasks.map((task) => JSON.stringify(task)).join(', ')}` : ''}`,
    `  next:    ${row.paused ? 'none while paused' : (row.nextRun?.toISOString() ?? 'none')}`,
    `  paused:  ${row.paused ? `yes${row.note ? ` (${row.note})` : ''}` : 'no'}`,
    `  actions: ${row.actionCount}${recent ? `, last at ${recent.toISOString()}` : ''}`,
  ].join('\n');
}

/** `scratchpad schedule pause|unpause|trigger|delete ID`: one change to one schedule; prints what it did. */
export async function changeSchedule(change: ScheduleChange, scheduleId: string, note?: string): Promise<number> {
  const id = checkedScheduleId(scheduleId);
  await withClient((client) => changeAgentSchedule(client, id, change, note), id);
  const done = { pause: 'Paused', unpause: 'Unpaused', trigger: 'Triggered', delete: 'Deleted' }[change];
  process.stdout.write(`${done} ${id}.\n`);
  return EXIT.ok;
}

/** The schedule id argument of `pause`, `unpause`, `trigger` and `delete`. */
export const SCHEDULE_ID = ['<id>', 'schedule id: agent/<agentId>/schedule/<name>'] as const;
