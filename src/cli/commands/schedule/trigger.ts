import { defineCommand } from '../../command';
import { SCHEDULE_ID, changeSchedule } from '../../schedules';

/** `scratchpad schedule trigger ID`: fire once now. */
export default defineCommand(
  (command) => command.argument(...SCHEDULE_ID),
  (scheduleId) => changeSchedule('trigger', scheduleId),
);
