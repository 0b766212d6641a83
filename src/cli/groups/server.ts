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
    .option(...MODELS)
    .option(...TOOLS_MODULE)
    .option(...MCP_CONFIG)
    .action(action(serve, 'devCommand'));
  program
    .command('worker')
    .description('run a worker for the configured task queue')
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option(...MODELS)
    .option(...TOOLS_MODULE)
    .option(...MCP_CONFIG)
    .action(action(serve, 'workerCommand'));
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
    .description('manage the detached dev server that `npm start` starts')
    .command('stop')
    .description('stop it')
    .action(action(serve, 'serverStopCommand'));
}
