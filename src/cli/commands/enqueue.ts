import { withAgent } from '../agent-access';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import { WORKER_MODEL, collect } from '../options';

/** `scratchpad enqueue AGENT --task T --goal G`: add to the task queue without running a cycle. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .option('--task <text>', 'task (repeatable)', collect, [])
      .option('--goal <text>', 'goal (repeatable)', collect, []),
  async (agentId, options) => {
    const result = await withAgent(
      agentId,
      options.model,
      (agents, target) => agents.enqueue(target, { tasks: options.task, goals: options.goal }),
      { create: true },
    );
    process.stdout.write(
      `current_task: ${result.current_task ?? '(none)'}\npending_actions: ${result.pending_actions.length}\n`,
    );
    return EXIT.ok;
  },
);
