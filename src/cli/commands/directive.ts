import { agentWorkflowId } from '../../common/ids';
import { describeIssues } from '../../common/workflow-input';
import { DirectiveTextSchema } from '../../core/cycle/input';
import { signalTarget } from '../agent-access';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';

/** `scratchpad directive AGENT TEXT`: a signal; reaches the running cycle's next iteration or waits for the next cycle. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .argument('<text>', 'the directive')
      .option('--create', 'start the agent when it does not exist (otherwise an unknown agent is an error)'),
  async (agentId, text, options) => {
    const refused = DirectiveTextSchema().safeParse(text);
    if (!refused.success) throw new CliError(`directive refused: ${describeIssues(refused.error)}`, EXIT.usage);
    const { agents, target } = await signalTarget(agentId, options.create);
    await agents.directive(target, text);
    process.stdout.write(`Directive sent to ${agentWorkflowId(agentId)}.\n`);
    return EXIT.ok;
  },
);
