import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { z } from 'zod';
import type { Observation } from '../../core/observation';
import type { TOOL_ARGS } from '../../core/tools';
import { splitCommandLine } from './command-line';
import { ensureSandboxRoot } from './sandbox';
import type { ToolOptions } from './types';

/** Bytes kept of each of stdout and stderr; the rest is read and dropped. */
export const SHELL_OUTPUT_MAX_BYTES = 1024 * 1024;

/** `shell`: one allow-listed program, no shell, cwd the sandbox root, killed after the timeout. */
export async function shell(args: z.infer<typeof TOOL_ARGS.shell>, options: ToolOptions): Promise<Observation> {
  const argv = splitCommandLine(args.command);
  const [program, ...programArgs] = argv;
  if (program === undefined) return { ok: false, error: 'empty command' };
  if (program.includes('/')) {
    return { ok: false, error: `program must be a bare name on the allow-list, not a path: ${program}` };
  }
  if (!options.shellAllow.includes(program)) {
    return { ok: false, error: `program "${program}" is not allowed (allowed: ${options.shellAllow.join(', ')})` };
  }
  checkArgumentsStayInside(programArgs);
  const executable = await findOnPath(program);
  const cwd = await ensureSandboxRoot(options.sandboxRoot);
  const timeoutMs = Math.min(args.timeout_ms ?? options.shellTimeoutMs, options.shellTimeoutMs * 10);
  const run = await runProcess(executable, programArgs, cwd, timeoutMs);
  const result = { exit_code: run.exitCode, stdout: run.stdout, stderr: run.stderr };
  if (run.timedOut) return { ok: false, result, error: `timed out after ${timeoutMs} ms; the process was killed` };
  if (run.exitCode === 0) return { ok: true, result };
  const error = run.exitCode === null ? `killed by ${run.signal ?? 'a signal'}` : `exited with code ${run.exitCode}`;
  return { ok: false, result, error };
}

// A guard against the obvious ways out, not a boundary: options like --file=/x and program semantics are not parsed.
function checkArgumentsStayInside(programArgs: string[]): void {
  for (const argument of programArgs) {
    const value = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : argument;
    for (const candidate of [argument, value]) {
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

interface ProcessRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runProcess(executable: string, programArgs: string[], cwd: string, timeoutMs: number): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    // Only what programs need: the worker's environment holds API keys.
    const env = { PATH: process.env.PATH ?? '', HOME: cwd, LANG: process.env.LANG ?? 'C.UTF-8' };
    // Its own process group, so a timeout kills anything it started too.
    const child = spawn(executable, programArgs, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
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
      resolve({ exitCode, signal, stdout: stdout.text(), stderr: stderr.text(), timedOut });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function capture(stream: NodeJS.ReadableStream): { text: () => string } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  stream.on('data', (chunk: Buffer) => {
    const keep = Math.max(0, Math.min(SHELL_OUTPUT_MAX_BYTES - kept, chunk.length));
    if (keep > 0) chunks.push(chunk.subarray(0, keep));
    kept += keep;
    dropped += chunk.length - keep;
  });
  return {
    text: () => {
      const text = Buffer.concat(chunks).toString('utf-8');
      return dropped > 0 ? `${text}\n[output truncated: ${dropped} more bytes not shown]` : text;
    },
  };
}
