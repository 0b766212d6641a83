import { defineCommand } from '../../command';
import { SCHEDULE_ID, changeSchedule } from '../../schedules';

/** `scratchpad schedule unpause ID`: resume firing. */
export default defineCommand(
  (command) => command.argument(...SCHEDULE_ID).option('--note <text>', 'why'),
  (scheduleId, options) => changeSchedule('unpause', scheduleId, options.note),
);
