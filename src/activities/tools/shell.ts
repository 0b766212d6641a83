import type { z } from 'zod';
import type { Observation } from '../../core/tools/observation';
import type { TOOL_ARGS } from '../../core/tools/catalogue';
import { splitCommandLine } from './command-line';
import { type ConfinedRunResult, confinementUnavailable, runConfined } from './confined';
import { ensureSandboxRoot } from './sandbox';
import { runUnconfined } from './shell-unconfined';
import type { ToolOptions } from './types';

/** Bytes kept of each of stdout and stderr; the rest is read and dropped. */
export const SHELL_OUTPUT_MAX_BYTES = 1024 * 1024;

/** `shell`: one allow-listed program, no shell, confined to the sandbox by bubblewrap, killed after the timeout. */
export async function shell(
  args: z.infer<ReturnType<typeof TOOL_ARGS.shell>>,
  options: ToolOptions,
  signal?: AbortSignal,
): Promise<Observation> {
  const argv = splitCommandLine(args.command);
  const [program] = argv;
  if (program === undefined) return { ok: false, error: 'empty command' };
  if (program.includes('/')) {
    return { ok: false, error: `program must be a bare name on the allow-list, not a path: ${program}` };
  }
  if (!options.shellAllow.includes(program)) {
    return { ok: false, error: `program "${program}" is not allowed (allowed: ${options.shellAllow.join(', ')})` };
  }
  const root = await ensureSandboxRoot(options.sandboxRoot);
  const timeoutMs = Math.min(args.timeout_ms ?? options.shellTimeoutMs, options.shellTimeoutMs * 10);
  let run: ConfinedRunResult;
  if (options.shellUnconfined) {
    run = await runUnconfined(argv, root, timeoutMs, SHELL_OUTPUT_MAX_BYTES);
  } else {
    const unavailable = await confinementUnavailable();
    if (unavailable !== undefined) {
      return {
        ok: false,
        error:
          `shell is disabled: it runs only inside a bubblewrap sandbox, and ${unavailable}. An operator who ` +
          'accepts a weaker guard (arguments checked, no OS sandbox) may set SCRATCHPAD_SHELL_UNCONFINED=true.',
      };
    }
    run = await runConfined({ root, argv, timeoutMs, maxOutputBytes: SHELL_OUTPUT_MAX_BYTES, signal });
  }
  const note = `\n[output truncated at ${SHELL_OUTPUT_MAX_BYTES} bytes per stream]`;
  const result = {
    exit_code: run.exitCode,
    stdout: run.truncated ? run.stdout + note : run.stdout,
    stderr: run.stderr,
    ...(run.cleared.length > 0 ? { setuid_bits_cleared: run.cleared } : {}),
  };
  if (run.timedOut) return { ok: false, result, error: `timed out after ${timeoutMs} ms; the process was killed` };
  if (run.exitCode === 0) return { ok: true, result };
  const error = run.exitCode === null ? `killed by ${run.signal ?? 'a signal'}` : `exited with code ${run.exitCode}`;
  return { ok: false, result, error };
}
