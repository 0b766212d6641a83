import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** Resource limits of every confined process (prlimit inside the sandbox). */
export const CONFINED_LIMITS = {
  /** Processes of the sandbox's user (counted inside its user namespace). */
  processes: 256,
  /**
   * Private writable memory (RLIMIT_DATA) per process. Not address space: WebAssembly and V8 reserve gigabytes
   * they never use, so a cap on it breaks node (its fetch parser cannot start).
   */
  memoryBytes: 2 * 1024 ** 3,
  /** Largest file a process may write. */
  fileBytes: 1024 ** 3,
  openFiles: 1024,
  /** The private /tmp, a tmpfs. */
  tmpBytes: 64 * 1024 ** 2,
} as const;

// Directories programs need to run; the rest of / (home directories, /root, /var, /srv) does not exist inside.
const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
// Not all of /etc: it holds passwd, shadow backups and the host's configuration.
const ETC_FILES = ['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'alternatives', 'nsswitch.conf'];
const ETC_NETWORK_FILES = ['resolv.conf', 'hosts', 'gai.conf', 'ssl', 'ca-certificates'];

/** bwrap's path, or why there is none and how to get it. */
export async function findBubblewrap(): Promise<{ path?: string; missing?: string }> {
  const configured = process.env.SCRATCHPAD_BWRAP_PATH;
  if (configured) {
    if (await isExecutable(configured)) return { path: configured };
    return {
      missing:
        `bubblewrap was not found at SCRATCHPAD_BWRAP_PATH=${configured}; install it ` +
        '(Debian/Ubuntu: apt-get install bubblewrap) and point SCRATCHPAD_BWRAP_PATH at bwrap, or unset it',
    };
  }
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    if (path.isAbsolute(directory) && (await isExecutable(path.join(directory, 'bwrap')))) {
      return { path: path.join(directory, 'bwrap') };
    }
  }
  return {
    missing:
      'bubblewrap (bwrap) was not found on PATH; install it (Debian/Ubuntu: apt-get install bubblewrap) ' +
      'or set SCRATCHPAD_BWRAP_PATH',
  };
}

/** prlimit in a directory the sandbox mounts. */
export async function findPrlimit(): Promise<string | undefined> {
  for (const candidate of ['/usr/bin/prlimit', '/bin/prlimit']) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fs.constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

interface ArgsOptions {
  root: string;
  argv: string[];
  timeoutMs: number;
  allowNetwork?: boolean;
  prlimit: string;
  /** A trial run: no sandbox directory mounted. */
  probe?: boolean;
}

/** bwrap's arguments: namespaces, mounts, then prlimit and the command. */
export async function confinementArgs(options: ArgsOptions): Promise<string[]> {
  const args = ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  if (options.allowNetwork) args.push('--share-net');
  args.push('--hostname', 'sandbox');
  for (const directory of SYSTEM_DIRECTORIES) args.push(...(await mountSystemDirectory(directory)));
  const etc = options.allowNetwork ? [...ETC_FILES, ...ETC_NETWORK_FILES] : ETC_FILES;
  for (const name of etc) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(CONFINED_LIMITS.tmpBytes), '--tmpfs', '/tmp');
  if (!options.probe) args.push('--bind', options.root, options.root, '--chdir', options.root);
  const cpuSeconds = Math.ceil(options.timeoutMs / 1000) + 1;
  args.push(
    '--',
    options.prlimit,
    `--nproc=${CONFINED_LIMITS.processes}`,
    `--data=${CONFINED_LIMITS.memoryBytes}`,
    `--cpu=${cpuSeconds}`,
    `--fsize=${CONFINED_LIMITS.fileBytes}`,
    `--nofile=${CONFINED_LIMITS.openFiles}`,
    '--',
    ...options.argv,
  );
  return args;
}

// Merged-/usr systems make /bin and /lib symlinks into /usr; they are recreated as symlinks, not bound twice.
async function mountSystemDirectory(directory: string): Promise<string[]> {
  try {
    const stat = await fs.lstat(directory);
    if (stat.isSymbolicLink()) return ['--symlink', await fs.readlink(directory), directory];
    if (stat.isDirectory()) return ['--ro-bind', directory, directory];
  } catch {
    // absent on this system
  }
  return [];
}
