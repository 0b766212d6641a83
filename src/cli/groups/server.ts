import type { Command } from 'commander';
import type { LazyAction } from './command-group';

/** Adds the commands that run things: the demo, a dev server, a worker, cluster setup. */
export function registerServerCommands(program: Command, action: LazyAction): void {
  const serve = () => import('../commands/serve');
  program
    .command('demo')
    .description('start a dev server if needed, run one demo cycle, print the scratchpad before and after (npm start)')
    .action(action(() => import('../demo/cycle-demo'), 'cycleDemoCommand'));
  program
    .command('dev')
    .description('run a dev server (SQLite file, Web UI) and a worker in the foreground')
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .action(action(serve, 'devCommand'));
  program
    .command('worker')
    .description('run a worker for the configured task queue')
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .action(action(serve, 'workerCommand'));
  program
    .command('setup')
    .description("register the project's search attributes on the cluster at TEMPORAL_ADDRESS")
    .action(action(serve, 'setupCommand'));
  program
    .command('server')
    .description('manage the detached dev server that `npm start` starts')
    .command('stop')
    .description('stop it')
    .action(action(serve, 'serverStopCommand'));
}
