import type { Command } from 'commander';
import { parsePositiveInt } from '../format';
import type { Run } from '../groups/run';
import {
  researchBoardCommand,
  researchDemoCommand,
  researchDirectiveCommand,
  researchListCommand,
  researchStartCommand,
} from './research';

/** `scratchpad research …`: a research run on the typed board (seed 003). */
export function registerResearchCommands(program: Command, run: Run): void {
  const research = program
    .command('research')
    .description('research runs: a supervisor, workers and a board where only verified facts reach the answer');
  research
    .command('start')
    .description('start a run; prints entries as they land, then the answer with its citations')
    .argument('<question>', 'the question')
    .option('--entities <list>', 'comma-separated entities (default: the question)')
    .option('--fields <list>', 'comma-separated fields per entity (default: answer)')
    .option('--max-workers <n>', 'workers running at once (default 4)', parsePositiveInt('--max-workers'))
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .option('--worker-model <spec>', 'model the research workers use')
    .option('--run-id <id>', 'run id (default run-<time>)')
    .action(run(researchStartCommand));
  research
    .command('board')
    .description("print a run's board")
    .argument('<run>', 'run id')
    .option('--json', 'print as JSON')
    .action(run(researchBoardCommand));
  research
    .command('directive')
    .description('send a user directive; the supervisor revises STRATEGY without stopping workers')
    .argument('<run>', 'run id')
    .argument('<text>', 'the directive')
    .action(run(researchDirectiveCommand));
  research.command('list').description('list research runs and their outcome').action(run(researchListCommand));
  research
    .command('demo')
    .description('offline demo: scripted workers against a fixture web on loopback')
    .action(run(researchDemoCommand));
}
