import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ConfinedRunResult } from './confined';
import { capture, killGroup } from './process-output';
import { sweepPrivilegedBits } from './sandbox-sweep';

/**
 * The argument guard an operator may opt in to (SCRATCHPAD_SHELL_UNCONFINED) where bubblewrap cannot run.
 * Not a boundary: program semantics are not parsed and symlinks are followed.
 */
export async function runUnconfined(
  argv: string[],
  cwd: string,
  timeoutMs: number,
  maxOutputBytes: number,
): Promise<ConfinedRunResult> {
  const [program, ...programArgs] = argv;
  checkArgumentsStayInside(programArgs);
  const executable = await findOnPath(program!);
  const run = await new Promise<Omit<ConfinedRunResult, 'cleared'>>((resolve, reject) => {
    // Only what programs need: the worker's environment holds API keys.
    const env = { PATH: process.env.PATH ?? '', HOME: cwd, LANG: process.env.LANG ?? 'C.UTF-8' };
    const child = spawn(executable, programArgs, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = capture(child.stdout, maxOutputBytes);
    const stderr = capture(child.stderr, maxOutputBytes);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`could not start ${path.basename(executable)}: ${error.message}`));
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const truncated = stdout.dropped() + stderr.dropped() > 0;
      resolve({ exitCode, signal, stdout: stdout.text(), stderr: stderr.text(), timedOut, truncated });
    });
  });
  // Run as the worker, an allowed chmod could still leave a setuid file behind.
  return { ...run, cleared: (await sweepPrivilegedBits(cwd)).cleared.map((entry) => entry.path) };
}

function checkArgumentsStayInside(programArgs: string[]): void {
  for (const argument of programArgs) {
    const value = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : argument;
    // -f/etc/passwd: a short option glued to its value.
    const glued = argument.replace(/^-+[A-Za-z]+/, '');
    for (const candidate of [argument, value, glued]) {
      if (path.isAbsolute(candidate)) {
        throw new Error(`absolute paths are not allowed in arguments: ${argument} (use paths relative to the sandbox)`);
      }
      if (candidate.split(/[/\\]/).includes('..')) throw new Error(`argument escapes the sandbox: ${argument}`);
    }
  }
}

// Only absolute PATH entries: an empty or relative entry would let a file written into the sandbox run.
async function findOnPath(program: string): Promise<string> {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(directory)) continue;
    const candidate = path.join(directory, program);
    try {
      await fs.access(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error(`program "${program}" is allowed but was not found on the worker's PATH`);
}
