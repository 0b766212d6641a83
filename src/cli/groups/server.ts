import type { Command } from 'commander';
import { demoCommand } from '../commands/demo';
import { devCommand, serverStopCommand, setupCommand, workerCommand } from '../commands/serve';
import type { Run } from './run';

/** Adds the commands that run things: the demo, a dev server, a worker, cluster setup. */
export function registerServerCommands(program: Command, run: Run): void {
  program
    .command('demo')
    .description('start a dev server if needed, run one demo cycle, print the scratchpad before and after (npm start)')
    .action(run(demoCommand));
  program
    .command('dev')
    .description('run a dev server (SQLite file, Web UI) and a worker in the foreground')
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .action(run(devCommand));
  program
    .command('worker')
    .description('run a worker for the configured task queue')
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .action(run(workerCommand));
  program
    .command('setup')
    .description("register the project's search attributes on the cluster at TEMPORAL_ADDRESS")
    .action(run(setupCommand));
  program
    .command('server')
    .description('manage the detached dev server that `npm start` starts')
    .command('stop')
    .description('stop it')
    .action(run(serverStopCommand));
}
