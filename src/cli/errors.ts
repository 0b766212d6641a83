/** Exit codes of the `scratchpad` command. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  cycleFailed: 3,
  maxIterations: 4,
  /** A staged run whose stages finished but whose work no verification checked. */
  unverified: 5,
  /** A research run that ended incomplete: no answer over unverified facts. */
  incomplete: 6,
} as const;

let verbose = false;

/** Set by the global `--verbose`: errors print their details (stack traces) besides the one-line message. */
export function setVerbose(on: boolean): void {
  verbose = on;
}

/** True when the command runs with `--verbose`. */
export function isVerbose(): boolean {
  return verbose;
}

/** An error the CLI reports in one message, without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}

/** The documented exit code of a cycle outcome; a cancelled cycle did not finish its work either. */
export function outcomeExitCode(result: { outcome: 'completed' | 'max_iterations' | 'failed' | 'cancelled' }): number {
  if (result.outcome === 'failed' || result.outcome === 'cancelled') return EXIT.cycleFailed;
  if (result.outcome === 'max_iterations') return EXIT.maxIterations;
  return EXIT.ok;
}

/** The documented exit code of a staged run: 0 verified, 3 failed, 5 unverified (done, but nothing checked it). */
export function stagedExitCode(result: { outcome: 'verified' | 'unverified' | 'failed' }): number {
  if (result.outcome === 'verified') return EXIT.ok;
  if (result.outcome === 'unverified') return EXIT.unverified;
  return EXIT.cycleFailed;
}
