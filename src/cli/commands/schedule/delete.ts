import { defineCommand } from '../../command';
import { SCHEDULE_ID, changeSchedule } from '../../schedules';

/** `scratchpad schedule delete ID`: delete the schedule. */
export default defineCommand(
  (command) => command.argument(...SCHEDULE_ID),
  (scheduleId) => changeSchedule('delete', scheduleId),
);
