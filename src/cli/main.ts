import { Command, CommanderError } from 'commander';
import { environmentHelp } from './environment-help';
import { CliError, EXIT } from './errors';
import { registerAgentCommands } from './groups/agent';
import { registerApprovalCommands } from './groups/approvals';
import { registerCodecServerCommands } from './groups/codec-server';
import type { CommandGroup, LazyAction } from './groups/command-group';
import { registerCycleCommands } from './groups/cycles';
import { registerResearchCommands } from './groups/research';
import { registerScheduleCommands } from './groups/schedule';
import { registerServerCommands } from './groups/server';
import { registerStagedCommands } from './groups/staged';

const EXIT_HELP = `
Exit codes: 0 success; 1 error; 2 bad usage; 3 cycle outcome "failed"; 4 cycle outcome "max_iterations";
5 staged run "unverified" (see scratchpad staged --help).`;

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
    .showHelpAfterError()
    .addHelpText('after', `${environmentHelp()}${EXIT_HELP}`)
    .exitOverride();
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
    const known = await knownError(error);
    if (known) {
      process.stderr.write(`scratchpad: ${known}\n`);
      return EXIT.error;
    }
    process.stderr.write(`scratchpad: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.error;
  }
}
