import { type CommandEntry, command } from './command-group';

/** The commands about cycles: run one, show, snapshots, replay, trace, timeline. */
export const CYCLE_COMMANDS: readonly CommandEntry[] = [
  command(
    'cycle',
    '[options] [agent]',
    'run one task cycle of an agent (through its agent workflow, one at a time), showing each step, and wait for ' +
      'the outcome',
    () => import('../commands/cycle'),
  ),
  command(
    'show',
    '[options] <id>',
    'print the scratchpad of an agent (its active state) or of a cycle workflow id',
    () => import('../commands/show'),
  ),
  command(
    'snapshots',
    '[options] <agent>',
    'write active.yaml and <cycle>_before/_after.yaml snapshots from the histories',
    () => import('../commands/snapshots'),
  ),
  command(
    'replay',
    '[options] [workflowId]',
    'replay a workflow history against the current code and report any non-determinism',
    () => import('../commands/replay'),
  ),
  command(
    'trace',
    '[options] <agent>',
    'per turn: input, response, scratchpad before and after, from histories',
    () => import('../commands/trace'),
  ),
  command(
    'timeline',
    '[options] <cycleId>',
    'the scratchpad after every iteration of a finished cycle, by replaying its history',
    () => import('../commands/timeline'),
  ),
];
