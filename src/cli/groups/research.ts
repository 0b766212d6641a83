import type { Command } from 'commander';
import { parsePositiveInt } from '../options';
import type { LazyAction } from './command-group';

/** Adds `research …`: a research run on the typed board (design.md, The research board). */
export function registerResearchCommands(program: Command, action: LazyAction): void {
  const commands = () => import('../commands/research');
  const research = program
    .command('research')
    .description('research runs: a supervisor, workers and a board where only verified facts reach the answer');
  research
    .command('start')
    .description(
      'start a run; prints the STRATEGY (planned from the question when --entities or --fields is left out), ' +
        'entries as they land, then the answer with its citations; exits 6 when the run ends incomplete',
    )
    .argument('<question>', 'the question')
    .option('--entities <list>', "comma-separated entities (default: the supervisor's model plans them)")
    .option('--fields <list>', "comma-separated fields per entity (default: the supervisor's model plans them)")
    .option(
      '--alias <field=names>',
      'other names pages give a field, e.g. revenue=turnover,sales: a quote naming one names the field (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--max-workers <n>', 'workers running at once (default 4)', parsePositiveInt('--max-workers'))
    .option(
      '--model <spec>',
      "the supervisor's model, which plans the entities and fields left out (no model call when both are " +
        "given; default SCRATCHPAD_MODEL); also the workers' model unless --worker-model",
    )
    .option('--worker-model <spec>', 'model the research workers use (default: --model)')
    .option('--run-id <id>', 'run id (default run-<time>); the workflow id is research/<id>')
    .action(action(commands, 'researchStartCommand'));
  research
    .command('board')
    .description("print a run's board")
    .argument('<run>', 'run id, with or without research/ (research/run-1 or run-1)')
    .option('--json', 'print as JSON')
    .action(action(commands, 'researchBoardCommand'));
  research
    .command('directive')
    .description('send a user directive to a running run; the supervisor revises STRATEGY without stopping workers')
    .argument('<run>', 'run id, with or without research/')
    .argument('<text>', 'the directive')
    .action(action(commands, 'researchDirectiveCommand'));
  research
    .command('list')
    .description(
      "list the research runs of this task queue (SCRATCHPAD_TASK_QUEUE, and the research demo's) and their outcome",
    )
    .option('--all', 'list the runs of every task queue')
    .action(action(commands, 'researchListCommand'));
  research
    .command('demo')
    .description('offline demo: a scripted supervisor plans the question, scripted workers research a fixture web')
    .action(action(() => import('../demo/research-demo'), 'researchDemoCommand'));
}
