import { Command, CommanderError, Option } from 'commander';
import { writeSnapshots } from '../snapshots';
import { cycleCommand } from './commands/cycle';
import { demoCommand } from './commands/demo';
import { replayCommand } from './commands/replay';
import { devCommand, serverStopCommand, setupCommand, workerCommand } from './commands/serve';
import { STATES, type StateName, showCommand } from './commands/show';
import { CliError, EXIT } from './errors';
import { FORMATS, parseFormat, parsePositiveInt } from './format';
import * as runtime from './runtime';

const ENVIRONMENT_HELP = `
Environment:
  TEMPORAL_ADDRESS      Temporal frontend (default localhost:7233)
  TEMPORAL_NAMESPACE    namespace (default "default")
  TEMPORAL_UI_URL       Web UI base URL for links (default http://localhost:8233)
  SCRATCHPAD_MODEL      anthropic:MODEL | openai:MODEL@http://HOST:PORT/v1 | scripted:FILE.jsonl
  ANTHROPIC_API_KEY     Anthropic key (alone it selects anthropic:claude-sonnet-5-5)
  ANTHROPIC_BASE_URL    alternative Messages API endpoint
  SCRATCHPAD_SANDBOX    root directory the tools may touch (default <data dir>/sandbox)
  SCRATCHPAD_HOME       data directory (default ~/.local/share/durable-scratchpad)

Exit codes: 0 success; 1 error; 2 bad usage; 3 cycle outcome "failed"; 4 cycle outcome "max_iterations".`;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Builds the `scratchpad` program; each action resolves to an exit code. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('scratchpad')
    .description('An LLM agent whose memory is a curated scratchpad, run as durable Temporal workflows.')
    .showHelpAfterError()
    .addHelpText('after', ENVIRONMENT_HELP)
    .exitOverride();
  const run =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A) =>
      setExitCode(await action(...args));

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
    .command('cycle')
    .description("run one cycle of an agent from its latest after-state and wait for the outcome")
    .requiredOption('--agent <id>', 'agent id')
    .option('--task <text>', 'task to enqueue before the cycle (repeatable)', collect, [])
    .option('--max-iterations <n>', 'model calls before giving up (default 10)', parsePositiveInt('--max-iterations'))
    .option('--from <file>', 'start from this scratchpad (YAML or JSON) instead of the latest after-state')
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option('--json', 'print the result as JSON')
    .action(run(cycleCommand));
  program
    .command('show')
    .description('print the scratchpad of an agent (its active state) or of a cycle workflow id')
    .argument('<id>', 'agent id, or a cycle workflow id like agent/<id>/cycle/<n>')
    .addOption(new Option('--state <which>', 'before, after or current').choices(STATES))
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('yaml'))
    .action(run((id: string, options: { state?: StateName; format: string }) =>
      showCommand(id, { state: options.state, format: parseFormat(options.format) }),
    ));
  program
    .command('snapshots')
    .description("write seed 000's active.yaml and <cycle>_before/_after.yaml files from the histories")
    .argument('<agent>', 'agent id')
    .requiredOption('--out <dir>', 'directory to write')
    .action(
      run(async (agent: string, options: { out: string }) => {
        const client = await runtime.client(runtime.config());
        const files = await writeSnapshots(client, agent, options.out);
        if (files.length === 0) throw new CliError(`no cycles found for agent "${agent}"`);
        process.stdout.write(`${files.join('\n')}\n`);
        return EXIT.ok;
      }),
    );
  program
    .command('replay')
    .description('replay a workflow history against the current code and report any non-determinism')
    .argument('[workflowId]', 'workflow id to fetch from the server')
    .option('--file <history.json>', 'a saved history (JSON, as `temporal workflow show --output json` writes)')
    .option('--save <file>', 'also save the history as JSON')
    .action(run(replayCommand));
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
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram((code) => (exitCode = code));
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`scratchpad: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`scratchpad: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.error;
  }
}
