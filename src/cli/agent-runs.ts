import * as fs from 'node:fs/promises';
import type { StagedRuns } from '../clients/staged-runs';
import { CliError, EXIT } from './errors';

// What `cycle` and `staged` share: the agent as an argument or --agent, and --prior-scratchpad.

/** The agent a command names: its AGENT argument or `--agent` (an alias); both, and different, is a usage error. */
export function agentFrom(argument: string | undefined, option: string | undefined, command: string): string {
  if (argument !== undefined && option !== undefined && argument !== option) {
    throw new CliError(`${command}: AGENT "${argument}" and --agent "${option}" differ: give one`, EXIT.usage);
  }
  const agentId = argument ?? option;
  if (agentId === undefined) throw new CliError(`${command} needs an AGENT (or --agent ID)`, EXIT.usage);
  return agentId;
}

/** Bytes of a prior scratchpad file read; only the first 2,000 characters reach the model anyway. */
const PRIOR_FILE_MAX_BYTES = 64 * 1024;

/**
 * `--prior-scratchpad PATH|last`: a file's text, or the run-local notes of the agent's latest finished task cycle or
 * staged run that left some, naming it on stderr; an error when there is none.
 */
export async function resolvePriorScratchpad(runs: StagedRuns, agentId: string, value: string): Promise<string> {
  if (value === 'last') {
    const notes = await runs.latestNotes(agentId);
    if (!notes) {
      throw new CliError(
        `--prior-scratchpad last: no finished task cycle or staged run of ${agentId} left run-local notes; ` +
          'give a file instead, or run one that keeps notes first',
        EXIT.usage,
      );
    }
    const when = notes.closedAt ? `, finished ${notes.closedAt.toISOString()}` : '';
    process.stderr.write(`Prior scratchpad: the notes of ${notes.kind} ${notes.workflowId}${when}\n`);
    return notes.text;
  }
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(value, 'r');
    const buffer = Buffer.alloc(PRIOR_FILE_MAX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, PRIOR_FILE_MAX_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch (error) {
    throw new CliError(`cannot read the prior scratchpad ${value}: ${(error as Error).message}`, EXIT.usage);
  } finally {
    await handle?.close();
  }
}
