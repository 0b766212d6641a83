import { type CommandEntry, command } from './command-group';

/** The commands that run things: the demo, a dev server, a worker, deploys, cluster setup. */
export const SERVER_COMMANDS: readonly CommandEntry[] = [
  command(
    'demo',
    '',
    'run `up`, then one demo cycle with a fresh demo agent; print the scratchpad before and after (npm start)',
    () => import('../demo/cycle-demo'),
  ),
  command(
    'up',
    '[options]',
    'start a dev server (unless one answers at TEMPORAL_ADDRESS) and a worker, both in the background, logs in the ' +
      'data directory; reuses what runs',
    () => import('../commands/up'),
  ),
  command(
    'down',
    '[options]',
    'stop the worker `up` started and the dev server scratchpad started (never a server it did not)',
    () => import('../commands/down'),
  ),
  command(
    'ps',
    '',
    'what runs: the dev server (address, Web UI, pid), background workers (pid, queue, model, log), the builds ' +
      'serving the task queue',
    () => import('../commands/ps'),
  ),
  command(
    'dev',
    '[options]',
    'run a dev server (SQLite file, Web UI), or use the one answering at TEMPORAL_ADDRESS, and a worker in the ' +
      'foreground',
    () => import('../commands/dev'),
  ),
  command('worker', '[options]', 'run a worker for the configured task queue', () => import('../commands/worker')),
  command(
    'deploy',
    '[options] <build-id>',
    'make a build current (Worker Versioning): new workflows start on it and agents move to it; cycles and runs ' +
      'finish on the build that started them',
    () => import('../commands/deploy'),
  ),
  command(
    'tools',
    '[options]',
    'the tools a running worker offers: name, source (builtin, code, mcp:NAME), policy, description',
    () => import('../commands/tools'),
  ),
  command(
    'setup',
    '',
    "register the project's search attributes on the cluster at TEMPORAL_ADDRESS",
    () => import('../commands/setup'),
  ),
  {
    name: 'server',
    description: 'manage the detached dev server that `npm start` and `up` start',
    subcommands: [
      command('stop', '', 'stop it (as `down` does, leaving the workers)', () => import('../commands/server/stop')),
    ],
  },
];
