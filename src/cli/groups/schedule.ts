import type { Command } from 'commander';
import { DEFAULT_SCHEDULE_NAME } from '../../common/ids';
import { collect } from '../options';
import type { LazyAction } from './command-group';

/** Adds the `schedule` command group to the program. */
export function registerScheduleCommands(program: Command, action: LazyAction): void {
  const commands = () => import('../commands/schedule');
  const schedule = program
    .command('schedule')
    .description('wake an agent on a Temporal Schedule (same memory as chat turns)');
  schedule
    .command('create')
    .description('create a schedule that wakes the agent with its tasks (overlapping wakes are skipped)')
    .argument('<agent>', 'agent id')
    .option('--every <duration>', 'interval, e.g. 30s, 5m, 1h, 1h30m')
    .option('--cron <expr>', 'cron expression, e.g. "0 9 * * 1-5"')
    .option('--task <text>', 'task to enqueue at every wake (repeatable)', collect, [])
    .option('--name <name>', `schedule name, unique per agent (default "${DEFAULT_SCHEDULE_NAME}")`)
    .option('--json', 'print the schedule as JSON')
    .action(action(commands, 'scheduleCreateCommand'));
  schedule
    .command('list')
    .description('list schedules: id, spec, next run, paused, recent actions')
    .argument('[agent]', 'only this agent')
    .option('--json', 'print JSON')
    .action(action(commands, 'scheduleListCommand'));
  const idHelp = 'schedule id: agent/<agentId>/schedule/<name>';
  schedule
    .command('pause')
    .description('stop firing')
    .argument('<id>', idHelp)
    .option('--note <text>', 'why')
    .action(action(commands, 'schedulePauseCommand'));
  schedule
    .command('unpause')
    .description('resume firing')
    .argument('<id>', idHelp)
    .option('--note <text>', 'why')
    .action(action(commands, 'scheduleUnpauseCommand'));
  schedule
    .command('trigger')
    .description('fire once now')
    .argument('<id>', idHelp)
    .action(action(commands, 'scheduleTriggerCommand'));
  schedule
    .command('delete')
    .description('delete the schedule')
    .argument('<id>', idHelp)
    .action(action(commands, 'scheduleDeleteCommand'));
}
