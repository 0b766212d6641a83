import { defineCommand } from '../../command';
import { SCHEDULE_ID, changeSchedule } from '../../schedules';

/** `scratchpad schedule pause ID`: stop firing. */
export default defineCommand(
  (command) => command.argument(...SCHEDULE_ID).option('--note <text>', 'why'),
  (scheduleId, options) => changeSchedule('pause', scheduleId, options.note),
);
