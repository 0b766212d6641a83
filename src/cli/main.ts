import { WorkflowNotFoundError } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Command, CommanderError, Option } from 'commander';
import { writeSnapshots } from '../client/snapshots';
import {
  configureCommand,
  directiveCommand,
  enqueueCommand,
  exportCommand,
  importCommand,
  injectCommand,
  sendCommand,
  statusCommand,
  traceCommand,
  wakeCommand,
} from './commands/agent';
import { chatCommand } from './commands/chat';
import { registerCodecServerCommand } from './commands/codec-server';
import { cycleCommand } from './commands/cycle';
import { demoCommand } from './commands/demo';
import { replayCommand } from './commands/replay';
import { registerScheduleCommands } from './commands/schedule';
import { devCommand, serverStopCommand, setupCommand, workerCommand } from './commands/serve';
import { STATES, type StateName, showCommand } from './commands/show';
import { timelineCommand } from './commands/timeline';
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
  SCRATCHPAD_OBSERVATIONS  observation store: a SQLite file (default <data dir>/observations.db) or redis://HOST:PORT
  SCRATCHPAD_ENCRYPTION_KEY(S)  encrypt payloads: ID:BASE64 (32 bytes), several comma-separated for rotation
  SCRATCHPAD_LOG_LEVEL  worker log level (default WARN)

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
    .description('run one task cycle of an agent (through its agent workflow, one at a time) and wait for the outcome')
    .requiredOption('--agent <id>', 'agent id')
    .option('--task <text>', 'task to enqueue before the cycle (repeatable)', collect, [])
    .option('--max-iterations <n>', 'model calls before giving up (default 10)', parsePositiveInt('--max-iterations'))
    .option(
      '--from <file>',
      "first replace the agent's scratchpad with this file (YAML or JSON; missing keys take defaults)",
    )
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option('--json', 'print the result as JSON')
    .action(run(cycleCommand));
  program
    .command('show')
    .description('print the scratchpad of an agent (its active state) or of a cycle workflow id')
    .argument('<id>', 'agent id, or a cycle workflow id like agent/<id>/cycle/<n>')
    .addOption(new Option('--state <which>', 'before, after or current').choices(STATES))
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('yaml'))
    .action(
      run((id: string, options: { state?: StateName; format: string }) =>
        showCommand(id, { state: options.state, format: parseFormat(options.format) }),
      ),
    );
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
    .command('send')
    .description('one chat turn (respond, then reflect into the scratchpad); prints the reply')
    .argument('<agent>', 'agent id')
    .argument('<text>', 'the message')
    .option('--json', 'print reply, cycle id and outcome as JSON')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(sendCommand));
  program
    .command('chat')
    .description('interactive chat: each line is a send; /scratchpad, /directive TEXT (held for the next turn), /quit')
    .argument('<agent>', 'agent id')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(chatCommand));
  program
    .command('directive')
    .description("steer an agent: reaches the running cycle's next iteration, or waits for the next cycle")
    .argument('<agent>', 'agent id')
    .argument('<text>', 'the directive')
    .action(run(directiveCommand));
  program
    .command('wake')
    .description('signal the agent to run a task cycle if tasks are pending (a running worker picks it up)')
    .argument('<agent>', 'agent id')
    .option('--task <text>', 'task to enqueue first (repeatable)', collect, [])
    .action(run(wakeCommand));
  program
    .command('enqueue')
    .description("add tasks or goals to the agent's scratchpad without running a cycle")
    .argument('<agent>', 'agent id')
    .option('--task <text>', 'task (repeatable)', collect, [])
    .option('--goal <text>', 'goal (repeatable)', collect, [])
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(enqueueCommand));
  program
    .command('inject')
    .description('set one scratchpad section (REPLACE, "APPEND: text" or CLEAR), e.g. identity_user')
    .argument('<agent>', 'agent id')
    .argument('<section>', 'update key, e.g. identity_user, understanding_known, workspace')
    .argument('<text>', 'content')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(injectCommand));
  program
    .command('status')
    .description('cycles, running cycle, held directives, token usage and cost of an agent')
    .argument('<agent>', 'agent id')
    .option('--json', 'print as JSON')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(statusCommand));
  program
    .command('configure')
    .description('change how an agent runs its cycles')
    .argument('<agent>', 'agent id')
    .option('--cycle-model <spec>', 'model for respond and task cycles')
    .option('--reflect-model <spec>', 'model for the reflect phase (e.g. a cheaper one)')
    .option('--single-phase', 'the update rides in the response (no separate reflect call)')
    .option('--two-phase', 'respond, then reflect (default)')
    .option('--budget <chars>', 'rendered scratchpad budget before archiving', parsePositiveInt('--budget'))
    .option('--max-iterations <n>', 'model calls per cycle', parsePositiveInt('--max-iterations'))
    .option('--continue-as-new-every <n>', 'cycles per workflow run', parsePositiveInt('--continue-as-new-every'))
    .action(
      run(
        (
          agent: string,
          options: {
            cycleModel?: string;
            reflectModel?: string;
            singlePhase?: boolean;
            twoPhase?: boolean;
            budget?: number;
            maxIterations?: number;
            continueAsNewEvery?: number;
          },
        ) => {
          if (options.singlePhase && options.twoPhase) {
            throw new CliError('choose --single-phase or --two-phase, not both', EXIT.usage);
          }
          return configureCommand(agent, {
            model: options.cycleModel,
            reflectModel: options.reflectModel,
            twoPhase: options.singlePhase ? false : options.twoPhase ? true : undefined,
            budgetChars: options.budget,
            maxIterations: options.maxIterations,
            continueAsNewEvery: options.continueAsNewEvery,
          });
        },
      ),
    );
  program
    .command('export')
    .description("print an agent's scratchpad and settings as JSON (seed 001 save)")
    .argument('<agent>', 'agent id')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(exportCommand));
  program
    .command('import')
    .description("replace an agent's scratchpad from an export (or a scratchpad YAML/JSON file)")
    .argument('<agent>', 'agent id')
    .argument('<file>', 'file written by export')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(importCommand));
  program
    .command('trace')
    .description('per turn: input, response, scratchpad before and after (seed 001 export_trace), from histories')
    .argument('<agent>', 'agent id')
    .requiredOption('--out <file>', 'JSON file to write')
    .action(run(traceCommand));
  program
    .command('timeline')
    .description('the scratchpad after every iteration of a finished cycle, by replaying its history')
    .argument('<cycleId>', 'cycle workflow id, agent/<id>/cycle/<n>')
    .option('--json', 'print every step as JSON')
    .addOption(new Option('--format <format>', 'also print the scratchpad after each step').choices(FORMATS))
    .action(
      run((cycleId: string, options: { json?: boolean; format?: string }) =>
        timelineCommand(cycleId, {
          json: options.json,
          format: options.format ? parseFormat(options.format) : undefined,
        }),
      ),
    );
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
  registerScheduleCommands(program, run);
  registerCodecServerCommand(program, run);
  return program;
}

const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** Worker and bundler chatter at INFO would drown the command's output; SCRATCHPAD_LOG_LEVEL raises it. */
function installLogger(): void {
  const requested = (process.env.SCRATCHPAD_LOG_LEVEL ?? 'WARN').toUpperCase();
  const level = (LOG_LEVELS as readonly string[]).includes(requested)
    ? (requested as (typeof LOG_LEVELS)[number])
    : 'WARN';
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    // Already installed in this process (main called twice, or by an embedding program): keep that one.
  }
}

/** A one-line message for errors a user causes (a missing workflow, an unreachable server), without a stack. */
// gRPC status codes (grpc/status.proto).
const GRPC_NOT_FOUND = 5;
const GRPC_UNAVAILABLE = 14;

function knownError(error: unknown): string | undefined {
  if (error instanceof WorkflowNotFoundError) return `no such workflow: ${error.workflowId}`;
  const grpc = error as { code?: unknown; details?: unknown };
  if (grpc && grpc.code === GRPC_NOT_FOUND) return `not found: ${String(grpc.details ?? '')}`;
  if (grpc && grpc.code === GRPC_UNAVAILABLE)
    return `the Temporal server is unavailable: ${String(grpc.details ?? '')}`;
  return undefined;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  installLogger();
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
    const known = knownError(error);
    if (known) {
      process.stderr.write(`scratchpad: ${known}\n`);
      return EXIT.error;
    }
    process.stderr.write(`scratchpad: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.error;
  }
}
