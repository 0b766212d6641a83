import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { applyConfigFile } from '../config/config-file';
import { ConfigError } from '../config/errors';
import { environmentHelp } from './environment-help';
import { CliError, EXIT, isVerbose, setVerbose } from './errors';
import { registerAgentCommands } from './groups/agent';
import { registerApprovalCommands } from './groups/approvals';
import { registerCodecServerCommands } from './groups/codec-server';
import type { CommandGroup, LazyAction } from './groups/command-group';
import { registerCycleCommands } from './groups/cycles';
import { registerResearchCommands } from './groups/research';
import { registerScheduleCommands } from './groups/schedule';
import { registerServerCommands } from './groups/server';
import { registerStagedCommands } from './groups/staged';

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

/** Every group of commands, in the order `--help` lists them. */
const GROUPS: CommandGroup[] = [
  registerServerCommands,
  registerCycleCommands,
  registerAgentCommands,
  registerApprovalCommands,
  registerStagedCommands,
  registerResearchCommands,
  registerCodecServerCommands,
  registerScheduleCommands,
];

/** Builds the `scratchpad` program; each action loads its command's module and resolves to an exit code. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('scratchpad')
    .description('An LLM agent whose memory is a curated scratchpad, run as durable Temporal workflows.')
    .version(packageVersion(), '--version', 'print the version')
    .option('--verbose', 'on error, print the details (stack traces) behind the one-line message')
    .option('--config <file>', 'read variables from this JSON file (default ./scratchpad.json when present)')
    .showHelpAfterError()
    .addHelpText('after', `${environmentHelp()}${CONFIG_HELP}${EXIT_HELP}`)
    .exitOverride();
  // Before any command runs, so that it, and any worker it starts in the background, sees the file's variables.
  program.hook('preAction', () => {
    const options = program.opts<{ verbose?: boolean; config?: string }>();
    setVerbose(options.verbose === true);
    try {
      applyConfigFile(options.config);
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
      throw error;
    }
  });
  const action: LazyAction =
    (load, name) =>
    async (...args) => {
      const command = (await load())[name] as (...args: unknown[]) => Promise<number>;
      setExitCode(await command(...args));
    };
  for (const register of GROUPS) register(program, action);
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
    const report = await reportError(error, isVerbose());
    process.stderr.write(report.text);
    return report.exitCode;
  }
}
