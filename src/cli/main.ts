import { WorkflowNotFoundError } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Command, CommanderError } from 'commander';
import { LOG_LEVELS } from '../config';
import { registerCodecServerCommand } from './commands/codec-server';
import { registerResearchCommands } from './commands/research-program';
import { registerScheduleCommands } from './commands/schedule';
import { registerStagedCommands } from './commands/staged-program';
import { environmentHelp } from './environment-help';
import { CliError, EXIT } from './errors';
import { registerAgentCommands } from './groups/agent';
import { registerCycleCommands } from './groups/cycles';
import { registerServerCommands } from './groups/server';

const EXIT_HELP = `
Exit codes: 0 success; 1 error; 2 bad usage; 3 cycle outcome "failed"; 4 cycle outcome "max_iterations";
5 staged run "unverified" (see scratchpad staged --help).`;

/** Builds the `scratchpad` program; each action resolves to an exit code. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('scratchpad')
    .description('An LLM agent whose memory is a curated scratchpad, run as durable Temporal workflows.')
    .showHelpAfterError()
    .addHelpText('after', `${environmentHelp()}${EXIT_HELP}`)
    .exitOverride();
  const run =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A) =>
      setExitCode(await action(...args));

  registerServerCommands(program, run);
  registerCycleCommands(program, run);
  registerAgentCommands(program, run);
  registerStagedCommands(program, run);
  registerResearchCommands(program, run);
  registerCodecServerCommand(program, run);
  registerScheduleCommands(program, run);
  return program;
}

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
  // The worker's native connection reports a refused or unreachable server as a TransportError from Rust.
  if (error instanceof Error && error.name === 'TransportError') {
    const found = /ConnectError\("([^"]*)", ([^,]+),.*message: "([^"]*)"/.exec(error.message);
    const why = found ? `${found[3]} at ${found[2]}` : error.message;
    return `the Temporal server is unavailable: ${why} (is it running? TEMPORAL_ADDRESS names it)`;
  }
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
