import { spawn } from 'node:child_process';
import { type DropToUser, confinementArgs, findBubblewrap, findPrlimit, findUtility } from './confined-args';
import { capture, killGroup } from './process-output';
import { type SandboxUser, claimSandbox, isRootWorker, sandboxUserFor } from './sandbox-user';
import { SWEEP_MAX_ENTRIES, sweepPrivilegedBits } from './sandbox-sweep';

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
  /** Files and directories whose setuid/setgid bits the sweep after the run cleared (sandbox-relative). */
  cleared: string[];
}

export const CONFINED_OUTPUT_MAX_BYTES = 1024 * 1024;

/**
 * Runs `argv` under bubblewrap: new user, pid, network, ipc and uts namespaces; system directories read-only;
 * only `root` writable; rlimits on processes, memory, CPU time and file size (see CONFINED_LIMITS). The program never
 * runs as host root (see confinementArgs), and a sweep after it clears any setuid/setgid bit it left in `root`.
 * Throws when confinement cannot start (see confinementUnavailable): it never falls back to running unconfined.
 */
export async function runConfined(options: ConfinedRunOptions): Promise<ConfinedRunResult> {
  const unavailable = await confinementUnavailable();
  if (unavailable !== undefined) throw new Error(unavailable);
  const bwrap = (await findBubblewrap()).path!;
  const user = await dropTo(await claimSandbox(options.root));
  const args = await confinementArgs({ ...options, prlimit: (await findPrlimit())!, user });
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: options.root, LANG: 'C.UTF-8', ...options.env };
  const maxBytes = options.maxOutputBytes ?? CONFINED_OUTPUT_MAX_BYTES;
  const result = await new Promise<Omit<ConfinedRunResult, 'cleared'>>((resolve, reject) => {
    // Its own process group, so a timeout kills bwrap; its pid namespace then takes every descendant with it.
    const child = spawn(bwrap, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = capture(child.stdout, maxBytes);
    const stderr = capture(child.stderr, maxBytes);
    let timedOut = false;
    const stop = (): void => killGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', stop, { once: true });
    const done = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
    };
    child.on('error', (error) => {
      done();
      reject(new Error(`could not start bubblewrap: ${error.message}`));
    });
    child.on('close', (exitCode, signal) => {
      done();
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.dropped() + stderr.dropped() > 0,
      });
    });
  });
  return { ...result, cleared: await sweep(options.root) };
}

// The pid namespace died with bwrap, so nothing of the run can change the tree while it is swept.
async function sweep(root: string): Promise<string[]> {
  let report;
  try {
    report = await sweepPrivilegedBits(root);
  } catch (error) {
    throw new Error(`could not sweep the sandbox for setuid/setgid files: ${(error as Error).message}`);
  }
  const cleared = report.cleared.map((entry) => entry.path);
  return report.complete ? cleared : [...cleared, `(the sweep stopped after ${SWEEP_MAX_ENTRIES} entries)`];
}

async function dropTo(user: SandboxUser | undefined): Promise<DropToUser | undefined> {
  if (user === undefined) return undefined;
  const [setpriv, unshare] = await Promise.all([findUtility('setpriv'), findUtility('unshare')]);
  if (setpriv === undefined || unshare === undefined) {
    throw new Error('setpriv and unshare (util-linux) were not found in /usr/bin or /bin; a root worker needs them');
  }
  return { ...user, setpriv, unshare };
}

const probes = new Map<string, Promise<string | undefined>>();

/** Why confinement cannot start here (e.g. bubblewrap missing), with how to enable it; undefined when it can. */
export async function confinementUnavailable(): Promise<string | undefined> {
  const bwrap = await findBubblewrap();
  if (bwrap.path === undefined) return bwrap.missing;
  const prlimit = await findPrlimit();
  if (prlimit === undefined) {
    return 'prlimit (util-linux) was not found in /usr/bin or /bin; install util-linux to confine commands';
  }
  let probe = probes.get(bwrap.path);
  if (probe === undefined) {
    probe = probeBubblewrap(bwrap.path, prlimit);
    probes.set(bwrap.path, probe);
  }
  return probe;
}

// A sandbox that cannot start (user namespaces disabled, a seccomp profile refusing them) is found once, up front.
async function probeBubblewrap(bwrap: string, prlimit: string): Promise<string | undefined> {
  let user: DropToUser | undefined;
  try {
    user = await dropTo(isRootWorker() ? sandboxUserFor({ uid: 0, gid: 0 }) : undefined);
  } catch (error) {
    return (error as Error).message;
  }
  const args = await confinementArgs({ root: '/', argv: ['true'], timeoutMs: 5_000, prlimit, user, probe: true });
  const needs = user
    ? `a worker running as root starts it as root (CAP_SYS_ADMIN) and runs programs as uid ${user.uid}; ` +
      'run the worker as an unprivileged user where root may not create namespaces'
    : 'it needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container, ' +
      'a seccomp profile that allows them)';
  return new Promise((resolve) => {
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    const stderr = capture(child.stderr, 4096);
    child.on('error', (error) => resolve(`bubblewrap at ${bwrap} could not start: ${error.message}`));
    child.on('close', (code) => {
      if (code === 0) return resolve(undefined);
      resolve(
        `bubblewrap at ${bwrap} cannot create a sandbox here (${stderr.text().trim() || `exit ${code}`}); ${needs}`,
      );
    });
  });
}
