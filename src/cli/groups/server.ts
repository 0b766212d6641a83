import type { Command } from 'commander';
import type { LazyAction } from './command-group';

const TOOLS_MODULE = [
  '--tools <module>',
  'your tools: a module whose default export is an array of defineTool(...) (overrides SCRATCHPAD_TOOLS)',
] as const;
const MODELS = [
  '--models <list>',
  'more model specs workflows may name, comma-separated: exact, anthropic:*, openai:*@URL, scripted:* ' +
    '(overrides SCRATCHPAD_MODELS)',
] as const;
const MCP_CONFIG = [
  '--mcp-config <file>',
  'MCP servers whose tools agents get: JSON in the mcpServers shape (overrides SCRATCHPAD_MCP_CONFIG)',
] as const;

/** The options of every command that runs a worker: `up`, `dev`, `worker`. */
function workerOptions(command: Command): Command {
  return command
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option(...MODELS)
    .option(...TOOLS_MODULE)
    .option(...MCP_CONFIG);
}

/** The options that make `worker` one build of a Worker Deployment (Worker Versioning). */
function deploymentOptions(command: Command): Command {
  return command
    .option('--deployment <name>', 'run as a build of this Worker Deployment (overrides SCRATCHPAD_DEPLOYMENT)')
    .option('--build-id <id>', "this worker's build in the deployment (overrides SCRATCHPAD_BUILD_ID)");
}

/** Adds the commands that run things: the demo, a dev server, a worker, cluster setup. */
export function registerServerCommands(program: Command, action: LazyAction): void {
  const serve = () => import('../commands/serve');
  const lifecycle = () => import('../commands/lifecycle');
  program
    .command('demo')
    .description(
      'run `up`, then one demo cycle with a fresh demo agent; print the scratchpad before and after (npm start)',
    )
    .action(action(() => import('../demo/cycle-demo'), 'cycleDemoCommand'));
  workerOptions(
    program
      .command('up')
      .description(
        'start a dev server (unless one answers at TEMPORAL_ADDRESS) and a worker, both in the background, logs in ' +
          'the data directory; reuses what runs',
      ),
  ).action(action(lifecycle, 'upCommand'));
  program
    .command('down')
    .description('stop the worker `up` started and the dev server scratchpad started (never a server it did not)')
    .option('--keep-server', 'stop only the workers')
    .action(action(lifecycle, 'downCommand'));
  program
    .command('ps')
    .description(
      'what runs: the dev server (address, Web UI, pid), background workers (pid, queue, model, log), the builds ' +
        'serving the task queue',
    )
    .action(action(lifecycle, 'psCommand'));
  workerOptions(
    program
      .command('dev')
      .description(
        'run a dev server (SQLite file, Web UI), or use the one answering at TEMPORAL_ADDRESS, and a worker in the ' +
          'foreground',
      ),
  ).action(action(serve, 'devCommand'));
  deploymentOptions(
    workerOptions(program.command('worker').description('run a worker for the configured task queue')),
  ).action(action(serve, 'workerCommand'));
  program
    .command('deploy')
    .argument('<build-id>', 'a build whose workers poll already')
    .description(
      'make a build current (Worker Versioning): new workflows start on it and agents move to it; cycles and runs ' +
        'finish on the build that started them',
    )
    .option('--deployment <name>', 'the Worker Deployment (default SCRATCHPAD_DEPLOYMENT, else the one polling)')
    .option('--json', 'print as JSON')
    .action(action(() => import('../commands/deploy'), 'deployCommand'));
  program
    .command('tools')
    .description('the tools a running worker offers: name, source (builtin, code, mcp:NAME), policy, description')
    .option('--agent <id>', "mark the tools this agent's settings select, and names the worker does not have")
    .option('--json', 'print every tool with its input schema as JSON')
    .action(action(() => import('../commands/tools'), 'toolsCommand'));
  program
    .command('setup')
    .description("register the project's search attributes on the cluster at TEMPORAL_ADDRESS")
    .action(action(serve, 'setupCommand'));
  program
    .command('server')
    .description('manage the detached dev server that `npm start` and `up` start')
    .command('stop')
    .description('stop it (as `down` does, leaving the workers)')
    .action(action(serve, 'serverStopCommand'));
}
