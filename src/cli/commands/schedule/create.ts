import { ScheduleAlreadyRunning } from '@temporalio/client';
import { type ScheduleTiming, createAgentSchedule, describeAgentSchedule } from '../../../clients/schedules';
import { hasPollers } from '../../../clients/task-queues';
import { parseDuration } from '../../../core/duration';
import { DEFAULT_SCHEDULE_NAME, agentScheduleId, validateAgentId } from '../../../common/ids';
import { errorMessage } from '../../../common/error-message';
import { defineCommand } from '../../command';
import { CliError, EXIT } from '../../errors';
import { collect } from '../../options';
import * as runtime from '../../runtime';
import { formatRow, withClient } from '../../schedules';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MIN_INTERVAL_MS = 1000;

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

/** `scratchpad schedule create AGENT`: a Temporal Schedule that wakes the agent with its tasks. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option('--every <duration>', 'interval, e.g. 30s, 5m, 1h, 1h30m')
      .option('--cron <expr>', 'cron expression, e.g. "0 9 * * 1-5"')
      .option('--task <text>', 'task to enqueue at every wake (repeatable)', collect, [])
      .option('--name <name>', `schedule name, unique per agent (default "${DEFAULT_SCHEDULE_NAME}")`)
      .option('--json', 'print the schedule as JSON'),
  async (agentId, options) => {
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
  },
);
