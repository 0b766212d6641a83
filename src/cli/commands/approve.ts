import { defineCommand } from '../command';
import { DECIDED_BY, decide, decisionArguments } from '../decisions';
import { parseJsonObject } from '../options';

/** `scratchpad approve TARGET [CALL_ID] [--args JSON] [--by NAME]`. */
export default defineCommand(
  (command) =>
    decisionArguments(command)
      .option(
        '--args <json>',
        'run with these arguments instead (a JSON object, checked against the tool schema)',
        parseJsonObject,
      )
      .option(...DECIDED_BY),
  async (target, callId, options) => {
    return decide(target, callId, {
      decision: 'approve',
      ...(options.args && { args: options.args }),
      ...(options.by !== undefined && { by: options.by }),
    });
  },
);
