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

/** A util-linux program (prlimit, setpriv, unshare) in a directory the sandbox mounts. */
export async function findUtility(name: string): Promise<string | undefined> {
  for (const directory of ['/usr/bin', '/bin']) {
    if (await isExecutable(`${directory}/${name}`)) return `${directory}/${name}`;
  }
  return undefined;
}

/** prlimit in a directory the sandbox mounts. */
export function findPrlimit(): Promise<string | undefined> {
  return findUtility('prlimit');
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fs.constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** How a root worker's sandbox drops to its user: setpriv and unshare paths, and the ids. */
export interface DropToUser {
  uid: number;
  gid: number;
  setpriv: string;
  unshare: string;
}

interface ArgsOptions {
  root: string;
  argv: string[];
  timeoutMs: number;
  allowNetwork?: boolean;
  prlimit: string;
  /** A root worker's sandbox user; absent, bwrap runs as the worker in a user namespace of its own. */
  user?: DropToUser;
  /** A trial run: no sandbox directory mounted. */
  probe?: boolean;
}

/**
 * bwrap's arguments: namespaces, mounts, then (for a root worker) the drop to the sandbox user, prlimit and the
 * command. A worker that is not root runs bwrap as itself in a new user namespace, so the program is the worker's
 * uid on the host. A root worker cannot do that: root in a user namespace is root on the host, which the kernel
 * exempts from the process cap and whose setuid files are root's. So bwrap runs as root only to build the mounts
 * (it can reach a sandbox under directories nobody else may enter), keeping only what it needs to switch user;
 * setpriv then becomes the sandbox user for good (no groups, no capabilities, no_new_privs), and unshare gives that
 * user a namespace of its own, so the process cap counts this sandbox's processes only.
 */
export async function confinementArgs(options: ArgsOptions): Promise<string[]> {
  const args = options.user
    ? ['--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try']
    : ['--unshare-all', '--unshare-user'];
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  if (options.user) {
    // Search past the sandbox user's own 0700 directory to --chdir there; becoming that user then clears them all.
    args.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_DAC_READ_SEARCH');
    if (!options.allowNetwork) args.push('--unshare-net');
  } else if (options.allowNetwork) args.push('--share-net');
  args.push('--hostname', 'sandbox');
  for (const directory of SYSTEM_DIRECTORIES) args.push(...(await mountSystemDirectory(directory)));
  // Directories bwrap makes on its own are root's alone (0700) when it runs as root: open them to the sandbox user.
  args.push('--perms', '0755', '--dir', '/etc');
  const etc = options.allowNetwork ? [...ETC_FILES, ...ETC_NETWORK_FILES] : ETC_FILES;
  for (const name of etc) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  args.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--size', String(CONFINED_LIMITS.tmpBytes));
  args.push('--tmpfs', '/tmp');
  if (!options.probe) {
    for (const parent of parentsToMake(options.root)) args.push('--perms', '0755', '--dir', parent);
    args.push('--bind', options.root, options.root, '--chdir', options.root);
  }
  const cpuSeconds = Math.ceil(options.timeoutMs / 1000) + 1;
  args.push('--', ...dropArgs(options.user));
  args.push(
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

// The sandbox is mounted at its host path; its parents inside are empty directories, except those mounted above.
function parentsToMake(root: string): string[] {
  const mounted = new Set(['/', '/etc', '/proc', '/dev', '/tmp', ...SYSTEM_DIRECTORIES]);
  const parents: string[] = [];
  for (let parent = path.dirname(root); !mounted.has(parent); parent = path.dirname(parent)) parents.unshift(parent);
  return parents;
}

function dropArgs(user: DropToUser | undefined): string[] {
  if (user === undefined) return [];
  const setpriv = [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--bounding-set=-all'];
  setpriv.push('--inh-caps=-all', '--no-new-privs');
  return [user.setpriv, ...setpriv, '--', user.unshare, '--user', '--'];
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
