import { type Command, Option } from 'commander';
import { FORMATS, MAX_ITERATIONS, STATES, collect, parsePositiveInt, parseToolPatterns } from '../options';
import type { LazyAction } from './command-group';

/** Adds the commands about cycles: run one, show, snapshots, replay, trace, timeline. */
export function registerCycleCommands(program: Command, action: LazyAction): void {
  const show = () => import('../commands/show');
  program
    .command('cycle')
    .description(
      'run one task cycle of an agent (through its agent workflow, one at a time), showing each step, and wait for ' +
        'the outcome',
    )
    .argument('[agent]', 'agent id (or --agent)')
    .option('--agent <id>', 'agent id: the same as the AGENT argument')
    .option(
      '--task <text>',
      "task to enqueue before the cycle (repeatable); behind the agent's current task, if it has one",
      collect,
      [],
    )
    .option(
      '--max-iterations <n>',
      'model calls before giving up (default 10)',
      parsePositiveInt('--max-iterations', MAX_ITERATIONS),
    )
    .option(
      '--from <file>',
      "first replace the agent's scratchpad with this file (YAML or JSON; missing keys take defaults)",
    )
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option('--tools <list>', "tools offered in this cycle, by name or glob: 'fs_*,web_fetch'", parseToolPatterns)
    .option('--prior-scratchpad <path|last>', "a file, or 'last' for the agent's previous run's notes")
    .option('--json', 'print only the result, as JSON (no progress)')
    .action(action(() => import('../commands/cycle'), 'cycleCommand'));
  program
    .command('show')
    .description('print the scratchpad of an agent (its active state) or of a cycle workflow id')
    .argument('<id>', 'agent id, or a cycle workflow id like agent/<id>/cycle/<n>')
    .addOption(new Option('--state <which>', 'before, after or current').choices(STATES))
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('yaml'))
    .action(action(show, 'showCommand'));
  program
    .command('snapshots')
    .description('write active.yaml and <cycle>_before/_after.yaml snapshots from the histories')
    .argument('<agent>', 'agent id')
    .requiredOption('--out <dir>', 'directory to write, or - for one YAML stream on stdout')
    .action(action(show, 'snapshotsCommand'));
  program
    .command('replay')
    .description('replay a workflow history against the current code and report any non-determinism')
    .argument('[workflowId]', 'workflow id to fetch from the server')
    .option('--file <history.json>', 'a saved history (JSON, as `temporal workflow show --output json` writes)')
    .option('--save <file>', 'also save the history as JSON')
    .action(action(() => import('../commands/replay'), 'replayCommand'));
  program
    .command('trace')
    .description('per turn: input, response, scratchpad before and after, from histories')
    .argument('<agent>', 'agent id')
    .requiredOption('--out <file>', 'JSON file to write, or - for stdout')
    .action(action(() => import('../commands/agent'), 'traceCommand'));
  program
    .command('timeline')
    .description('the scratchpad after every iteration of a finished cycle, by replaying its history')
    .argument('<cycleId>', 'cycle workflow id, agent/<id>/cycle/<n>')
    .option('--json', 'print every step as JSON')
    .addOption(new Option('--format <format>', 'also print the scratchpad after each step').choices(FORMATS))
    .action(action(() => import('../commands/timeline'), 'timelineCommand'));
}
