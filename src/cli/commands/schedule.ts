import { type Client, ScheduleAlreadyRunning, ScheduleNotFoundError } from '@temporalio/client';
import {
  type AgentScheduleInfo,
  type ScheduleChange,
  type ScheduleTiming,
  changeAgentSchedule,
  createAgentSchedule,
  describeAgentSchedule,
  listAgentSchedules,
} from '../../client';
import { hasPollers } from '../../clients/task-queues';
import { parseDuration } from '../../core/duration';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { DEFAULT_SCHEDULE_NAME, validateAgentId, agentScheduleId, parseAgentScheduleId } from '../../common/ids';
import { errorMessage } from '../../common/error-message';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MIN_INTERVAL_MS = 1000;

/** The options of `scratchpad schedule create`, as commander parses them. */
export interface ScheduleCreateOptions {
  every?: string;
  cron?: string;
  task: string[];
  name?: string;
  json?: boolean;
}

/** Checks `--every` / `--cron` before anything touches the server. */
export function parseTiming(options: { every?: string; cron?: string }): ScheduleTiming {
  if (options.every !== undefined && options.cron !== undefined) {
    throw new CliError('give either --every or --cron, not both', EXIT.usage);
  }
  if (options.every !== undefined) {
    const every = parseDuration(options.every);
    if (every === undefined) {
      throw new CliError(
        `invalid --every "${options.every}": expected a duration like 30s, 5m, 1h or 1h30m`,
        EXIT.usage,
      );
    }
    if (every < MIN_INTERVAL_MS) throw new CliError(`invalid --every "${options.every}": at least 1s`, EXIT.usage);
    return { every };
  }
  if (options.cron !== undefined) {
    const cron = options.cron.trim();
    if (cron === '') throw new CliError('--cron needs an expression, e.g. "0 9 * * 1-5"', EXIT.usage);
    return { cron };
  }
  throw new CliError('give --every DURATION (e.g. 30m) or --cron EXPR (e.g. "0 9 * * 1-5")', EXIT.usage);
}

function checkedScheduleId(scheduleId: string): string {
  if (parseAgentScheduleId(scheduleId)) return scheduleId;
  throw new CliError(
    `invalid schedule id "${scheduleId}": expected agent/<agentId>/schedule/<name> (see \`scratchpad schedule list\`)`,
    EXIT.usage,
  );
}

/** Runs `work` with a client, turning the schedule client's errors into one-line CLI errors. */
async function withClient<T>(work: (client: Client) => Promise<T>, scheduleId?: string): Promise<T> {
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

function formatRow(row: AgentScheduleInfo): string {
  const recent = row.recentActions.at(-1);
  return [
    row.scheduleId,
    `  spec:    ${row.spec}${row.tasks.length > 0 ? `, tasks: ${row.tasks.map((task) => JSON.stringify(task)).join(', ')}` : ''}`,
    `  next:    ${row.paused ? 'none while paused' : (row.nextRun?.toISOString() ?? 'none')}`,
    `  paused:  ${row.paused ? `yes${row.note ? ` (${row.note})` : ''}` : 'no'}`,
    `  actions: ${row.actionCount}${recent ? `, last at ${recent.toISOString()}` : ''}`,
  ].join('\n');
}

/** `scratchpad schedule create AGENT`: a Temporal Schedule that wakes the agent with its tasks. */
export async function scheduleCreateCommand(agentId: string, options: ScheduleCreateOptions): Promise<number> {
  const problem = validateAgentId(agentId);
  if (problem) throw new CliError(problem, EXIT.usage);
  const name = options.name ?? DEFAULT_SCHEDULE_NAME;
  if (!NAME.test(name)) {
    throw new CliError(`invalid --name "${name}": use 1-64 letters, digits, ".", "_" or "-"`, EXIT.usage);
  }
  const tasks = options.task.map((task) => task.trim());
  if (tasks.some((task) => task === '')) throw new CliError('--task needs some text', EXIT.usage);
  const timing = parseTiming(options);
  const config = runtime.config();
  return withClient(async (client) => {
    const schedule = { agentId, name, timing, tasks, taskQueue: config.SCRATCHPAD_TASK_QUEUE };
    await createAgentSchedule(client, schedule).catch((error: unknown) => {
      // The server validates cron expressions; its refusal names the problem.
      if ('cron' in timing && !(error instanceof ScheduleAlreadyRunning)) {
        throw new CliError(`invalid --cron "${timing.cron}": ${errorMessage(error)}`, EXIT.usage);
      }
      throw error;
    });
    const row = await describeAgentSchedule(client, agentScheduleId(agentId, name));
    if (options.json) {
      process.stdout.write(`${JSON.stringify(row, null, 2)}\n`);
      return EXIT.ok;
    }
    process.stdout.write(`Created schedule\n${formatRow(row)}\n`);
    if (!(await hasPollers(client, config.SCRATCHPAD_TASK_QUEUE))) {
      process.stderr.write(
        `No worker polls task queue "${config.SCRATCHPAD_TASK_QUEUE}" yet: the agent wakes once one does ` +
          '(`scratchpad worker` or `scratchpad dev`).\n',
      );
    }
    return EXIT.ok;
  });
}

/** `scratchpad schedule list [AGENT]`: id, spec, next run, paused, recent actions. */
export async function scheduleListCommand(agentId: string | undefined, options: { json?: boolean }): Promise<number> {
  const problem = agentId === undefined ? undefined : validateAgentId(agentId);
  if (problem) throw new CliError(problem, EXIT.usage);
  const rows = await withClient((client) => listAgentSchedules(client, agentId));
  if (options.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0)
    process.stdout.write(agentId ? `No schedules for agent "${agentId}".\n` : 'No schedules.\n');
  else process.stdout.write(`${rows.map(formatRow).join('\n')}\n`);
  return EXIT.ok;
}

/** `scratchpad schedule pause|unpause|trigger|delete ID`: one change to one schedule. */
function scheduleChangeCommand(change: ScheduleChange) {
  return async (scheduleId: string, options: { note?: string } = {}): Promise<number> => {
    const id = checkedScheduleId(scheduleId);
    await withClient((client) => changeAgentSchedule(client, id, change, options.note), id);
    const done = { pause: 'Paused', unpause: 'Unpaused', trigger: 'Triggered', delete: 'Deleted' }[change];
    process.stdout.write(`${done} ${id}.\n`);
    return EXIT.ok;
  };
}

/** `scratchpad schedule pause ID`: stop firing. */
export const schedulePauseCommand = scheduleChangeCommand('pause');
/** `scratchpad schedule unpause ID`: resume firing. */
export const scheduleUnpauseCommand = scheduleChangeCommand('unpause');
/** `scratchpad schedule trigger ID`: fire once now. */
export const scheduleTriggerCommand = scheduleChangeCommand('trigger');
/** `scratchpad schedule delete ID`: delete the schedule. */
export const scheduleDeleteCommand = scheduleChangeCommand('delete');
