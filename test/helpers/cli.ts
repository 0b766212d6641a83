import { execFile } from 'node:child_process';
import * as path from 'node:path';

/** bin/scratchpad.js, which loads dist/: `npm run build` first. */
export const BIN = path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the command as a user's shell would, against the test dev server, with `home` as its home and only the
 * environment given here: nothing of the test process's configuration leaks in.
 */
export function runCli(
  args: string[],
  options: { home: string; taskQueue: string; env?: Record<string, string>; input?: string; timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: options.home,
          SCRATCHPAD_HOME: options.home,
          TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS ?? '',
          SCRATCHPAD_TASK_QUEUE: options.taskQueue,
          ...options.env,
        },
        timeout: options.timeoutMs ?? 90_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
