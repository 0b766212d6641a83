import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError, Help } from '@commander-js/extra-typings';
import { applyConfigFile } from '../config/config-file';
import { commandScope } from './command-scope';
import { ConfigError } from '../config/errors';
import { environmentHelp } from './environment-help';
import { CliError, EXIT, isVerbose, setVerbose } from './errors';
import { isStuckDevServer, STUCK_DEV_SERVER_HINT } from './server-errors';
import { AGENT_COMMANDS } from './groups/agent';
import type { CommandEntry } from './groups/command-group';
import { CYCLE_COMMANDS } from './groups/cycles';
import {
  APPROVAL_COMMANDS,
  CODEC_SERVER_COMMANDS,
  RESEARCH_COMMANDS,
  SCHEDULE_COMMANDS,
  STAGED_COMMANDS,
} from './groups/other';
import { SERVER_COMMANDS } from './groups/server';

const CONFIG_HELP = `
Config file: scratchpad.json in the working directory, or --config FILE (or SCRATCHPAD_CONFIG=FILE): a JSON object
whose keys are the variables above, e.g. {"SCRATCHPAD_TASK_QUEUE": "mine", "SCRATCHPAD_FETCH_ALLOW": ["example.com"]}
(arrays are joined with commas); relative paths are relative to the file. A variable set in the environment wins.
`;

const EXIT_HELP = `
Exit codes: 0 success; 1 error; 2 bad usage (a bad option, argument or config file); 3 cycle outcome "failed"
(staged run "failed"); 4 cycle outcome "max_iterations"; 5 staged run "unverified" (see scratchpad staged --help);
6 research run "incomplete" (no answer over unverified facts).`;

/** This package's version, from its package.json (src/ and dist/ both sit below it). */
function packageVersion(): string {
  for (let directory = __dirname; ; directory = path.dirname(directory)) {
    const file = path.join(directory, 'package.json');
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
    if (path.dirname(directory) === directory) return 'unknown';
  }
}

/** Every command, in the order `--help` lists them. */
const COMMANDS: readonly CommandEntry[] = [
  ...SERVER_COMMANDS,
  ...CYCLE_COMMANDS,
  ...AGENT_COMMANDS,
  ...APPROVAL_COMMANDS,
  ...STAGED_COMMANDS,
  ...RESEARCH_COMMANDS,
  ...CODEC_SERVER_COMMANDS,
  ...SCHEDULE_COMMANDS,
];

/** The commands of a program whose module is not loaded yet, each with its entry. */
type Pending = Map<Command, CommandEntry>;

/**
 * Adds the listed commands below `parent`, each with only its name and description until it is dispatched to: then
 * its module is loaded and declares the rest (see {@link CommandEntry}).
 */
function addCommands(parent: Command, entries: readonly CommandEntry[], pending: Pending, setExitCode: SetExitCode) {
  // Commander lists a `help` command only for a command that has subcommands and no action of its own.
  const listsHelp = !pending.has(parent);
  const load = async (command: Command) => {
    const entry = pending.get(command);
    if (!entry?.load) return;
    pending.delete(command);
    (await entry.load()).default.attach(command, setExitCode);
  };
  for (const entry of entries) {
    const command = parent.command(entry.name).description(entry.description);
    if (entry.load) pending.set(command, entry);
    if (entry.subcommands) addCommands(command, entry.subcommands, pending, setExitCode);
  }
  // A hook runs for the command's own subcommands only, so each parent has one.
  parent.hook('preSubcommand', (_parent, subcommand) => load(subcommand as Command));
  // Commander's own `help COMMAND` prints the command's help without dispatching to it: this one loads it first.
  parent.helpCommand(false);
  if (!listsHelp) return;
  parent
    .command(HELP_COMMAND)
    .description('display help for command')
    .argument('[command]')
    .action(async (name) => {
      const command = name === undefined ? parent : parent.commands.find((found) => found.name() === name);
      if (!command) parent.help({ error: true });
      await load(command as Command);
      (command as Command).help();
    });
}

/** The name of the command that prints another's help. */
const HELP_COMMAND = 'help';

type SetExitCode = (code: number) => void;

/** Builds the `scratchpad` program; a command's module is loaded when it runs, and resolves to the exit code. */
export function buildProgram(setExitCode: SetExitCode): Command {
  const pending: Pending = new Map();
  const defaultHelp = new Help();
  const program = new Command('scratchpad')
    .description('An LLM agent whose memory is a curated scratchpad, run as durable Temporal workflows.')
    .version(packageVersion(), '--version', 'print the version')
    .option('--verbose', 'on error, print the details (stack traces) behind the one-line message')
    .option('--config <file>', 'read variables from this JSON file (default ./scratchpad.json when present)')
    .configureHelp({
      // A command not loaded yet is listed with the usage its entry gives (test/unit/cli-commands.test.ts checks it).
      subcommandTerm: (command) => {
        const entry = pending.get(command as Command);
        return entry ? [entry.name, entry.usage].filter(Boolean).join(' ') : defaultHelp.subcommandTerm(command);
      },
    })
    .showHelpAfterError()
    .addHelpText('after', `${environmentHelp()}${CONFIG_HELP}${EXIT_HELP}`)
    .exitOverride();
  // Before any command runs, so that it, and any worker it starts in the background, sees the file's variables.
  program.hook('preAction', (_program, command) => {
    if (command.name() === HELP_COMMAND) return;
    const options = program.opts();
    setVerbose(options.verbose === true);
    try {
      applyConfigFile(options.config);
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
      throw error;
    }
  });
  addCommands(program, COMMANDS, pending, setExitCode);
  return program;
}

// gRPC status codes (grpc/status.proto).
const GRPC_NOT_FOUND = 5;
const GRPC_UNAVAILABLE = 14;

/** A one-line message for errors a user causes (a missing workflow, an unreachable server), without a stack. */
async function knownError(error: unknown): Promise<string | undefined> {
  // Imported here to keep it out of start-up; a command that failed this way has loaded it already.
  const { WorkflowNotFoundError } = await import('@temporalio/client');
  if (error instanceof WorkflowNotFoundError) return `no such workflow: ${error.workflowId}`;
  const { isPayloadLimitRefusal, payloadLimitMessage } = await import('../clients/payload-limit');
  // A facade's refusal names what it sent; a raw one says only that the request was refused.
  if (isPayloadLimitRefusal(error))
    return error instanceof RangeError ? error.message : payloadLimitMessage('the request');
  // A worker command on a client-only install: the line that installs what it lacks.
  const { workerDependencyProblem } = await import('../config/worker-dependencies');
  const missing = workerDependencyProblem(error);
  if (missing) return missing;
  if (isStuckDevServer(error)) return `${oneLine(error)}\n${STUCK_DEV_SERVER_HINT}`;
  const grpc = error as { code?: unknown; details?: unknown };
  if (grpc && grpc.code === GRPC_NOT_FOUND) return `not found: ${String(grpc.details ?? '')}`;
  if (grpc && grpc.code === GRPC_UNAVAILABLE)
    return `the Temporal server is unavailable: ${String(grpc.details ?? '')}`;
  // The worker's native connection reports a refused or unreachable server as a TransportError from Rust.
  if (error instanceof Error && error.name === 'TransportError') {
    const found = /ConnectError\("([^"]*)", ([^,]+),.*message: "([^"]*)"/.exec(error.message);
    const why = found ? `${found[3]} at ${found[2]}` : error.message;
    return `the Temporal server is unavailable: ${why} (is it running? TEMPORAL_ADDRESS names it)`;
  }
  return undefined;
}

/** The error's message and its causes', one line: what failed, then why. */
function oneLine(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const line = message.split('\n').find((text) => text.trim() !== '') ?? '';
    if (line && !parts.some((part) => part.includes(line))) parts.push(line.trim());
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  const text = parts.join(': ') || 'unknown error';
  return text.length > 400 ? `${text.slice(0, 399)}…` : text;
}

/** The stack of the error and of each of its causes, for `--verbose`. */
function details(error: unknown): string {
  const stacks: string[] = [];
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++, cause = cause.cause) {
    stacks.push(`${depth === 0 ? '' : 'caused by: '}${cause.stack ?? cause.message}`);
  }
  return stacks.length > 0 ? `${stacks.join('\n')}\n` : `${String(error)}\n`;
}

/** What the CLI prints of an error that ended a command (one line; the stacks first with `verbose`), and its exit code. */
export async function reportError(error: unknown, verbose: boolean): Promise<{ text: string; exitCode: number }> {
  const before = verbose ? details(error) : '';
  if (error instanceof CliError) return { text: `${before}scratchpad: ${error.message}\n`, exitCode: error.exitCode };
  const known = await knownError(error);
  const hint = verbose ? '' : ' (run again with --verbose for the details)';
  return { text: `${before}scratchpad: ${known ?? `${oneLine(error)}${hint}`}\n`, exitCode: EXIT.error };
}

/** Commands that run until stopped (or a session of many turns): no one span around the whole of them. */
const LONG_RUNNING = new Set(['worker', 'dev', 'up', 'chat', 'console', 'codec-server', 'demo']);

/** The command `argv` runs (its first word that is not an option or `--config`'s file). */
function commandOf(argv: readonly string[]): string | undefined {
  const words = argv.slice(2);
  for (let index = 0; index < words.length; index++) {
    if (words[index] === '--config') index++;
    else if (!words[index]!.startsWith('-')) return words[index];
  }
  return undefined;
}

/**
 * Runs the program; with telemetry on (the OTEL_* variables), a short command is one span, the root of the trace its
 * client calls carry into the workflows, and every span is flushed before the process exits.
 */
async function run(program: Command, argv: string[]): Promise<void> {
  const { startTelemetry, shutdownTelemetry, withSpan } = await import('../telemetry');
  const command = commandOf(argv);
  const traced = startTelemetry() !== undefined && command !== undefined && !LONG_RUNNING.has(command);
  try {
    await commandScope(async () => {
      if (traced) await withSpan(`scratchpad ${command}`, () => program.parseAsync(argv));
      else await program.parseAsync(argv);
    });
  } finally {
    await shutdownTelemetry();
  }
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram((code) => (exitCode = code));
  try {
    await run(program, argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const report = await reportError(error, isVerbose());
    process.stderr.write(report.text);
    return report.exitCode;
  }
}
