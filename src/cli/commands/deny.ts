import { defineCommand } from '../command';
import { DECIDED_BY, decide, decisionArguments } from '../decisions';

/** `scratchpad deny TARGET [CALL_ID] [--reason TEXT] [--by NAME]`. */
export default defineCommand(
  (command) =>
    decisionArguments(command)
      .option('--reason <text>', 'why, for the model to adapt to')
      .option(...DECIDED_BY),
  async (target, callId, options) => {
    return decide(target, callId, {
      decision: 'deny',
      ...(options.reason !== undefined && { reason: options.reason }),
      ...(options.by !== undefined && { by: options.by }),
    });
  },
);
