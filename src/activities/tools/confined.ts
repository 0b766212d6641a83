import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';

// A minimal bubblewrap runner to the shared interface; the security engineer's implementation replaces it at merge.

export interface ConfinedRunOptions {
  /** Absolute sandbox directory: the only writable path, mounted as the working directory. */
  root: string;
  /** Program and arguments (a command line is run as ['sh', '-c', line] by the caller). */
  argv: string[];
  timeoutMs: number;
  /** Per stream; the rest is read and dropped. */
  maxOutputBytes?: number;
  env?: Record<string, string>;
  /** Default false. */
  allowNetwork?: boolean;
  /** Activity cancellation. */
  signal?: AbortSignal;
}

export interface ConfinedRunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
}

const BWRAP = '/usr/bin/bwrap';
const DEFAULT_MAX_OUTPUT = 1024 * 1024;

/** Why confinement cannot start here (e.g. bubblewrap missing), with how to enable it; undefined when it can. */
export async function confinementUnavailable(): Promise<string | undefined> {
  try {
    await fs.access(BWRAP, fs.constants.X_OK);
  } catch {
    return `bubblewrap is not installed at ${BWRAP}: install it (apt-get install bubblewrap) to run commands confined`;
  }
  return undefined;
}

// /usr read-only and the usual merged-/usr links; nothing of the host's /home, /etc secrets or /tmp is visible.
function bwrapArgs(options: ConfinedRunOptions): string[] {
  return [
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    options.root,
    options.root,
    '--chdir',
    options.root,
    '--unshare-all',
    ...(options.allowNetwork ? ['--share-net', '--ro-bind', '/etc/resolv.conf', '/etc/resolv.conf'] : []),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...Object.entries(options.env ?? {}).flatMap(([key, value]) => ['--setenv', key, value]),
    '--',
    ...options.argv,
  ];
}

/** Runs `argv` under bubblewrap with only `root` writable, no network unless allowed, killed at the timeout. */
export async function runConfined(options: ConfinedRunOptions): Promise<ConfinedRunResult> {
  const unavailable = await confinementUnavailable();
  if (unavailable) throw new Error(unavailable);
  if (options.argv.length === 0) throw new Error('empty argv');
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: options.root, LANG: 'C.UTF-8', ...options.env };
  return new Promise((resolve, reject) => {
    // Its own process group, so the timeout kills whatever the command started too.
    const child = spawn(BWRAP, bwrapArgs({ ...options, env }), {
      cwd: options.root,
      env: {},
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout = capture(child.stdout, maxBytes);
    const stderr = capture(child.stderr, maxBytes);
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`could not start bubblewrap: ${error.message}`));
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated() || stderr.truncated(),
      });
    });
  });
}

// Keeps the first `maxBytes` of a stream and keeps reading the rest, so a chatty command never blocks on a full pipe.
function capture(stream: NodeJS.ReadableStream, maxBytes: number) {
  const kept: Buffer[] = [];
  const counts = { kept: 0, dropped: 0 };
  stream.on('data', (chunk: Buffer) => {
    const room = Math.max(0, maxBytes - counts.kept);
    if (room > 0) kept.push(chunk.subarray(0, room));
    counts.kept += Math.min(room, chunk.length);
    counts.dropped += Math.max(0, chunk.length - room);
  });
  return { text: () => Buffer.concat(kept).toString('utf-8'), truncated: () => counts.dropped > 0 };
}
