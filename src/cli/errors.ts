/** Exit codes of the `scratchpad` command. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  cycleFailed: 3,
  maxIterations: 4,
} as const;

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
