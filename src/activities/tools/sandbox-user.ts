import * as fs from 'node:fs/promises';
import { transferOwnership } from './sandbox-sweep';

/** The unprivileged user (nobody) a root worker runs sandboxed programs as unless configured otherwise. */
export const DEFAULT_SANDBOX_ID = 65534;

/** Who sandboxed programs run as on the host. */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** Whether this worker runs as root: the kernel then exempts it from the process cap, so programs must not. */
export function isRootWorker(): boolean {
  return process.getuid?.() === 0;
}

/**
 * The user a root worker runs sandboxed programs as: SCRATCHPAD_SANDBOX_UID / SCRATCHPAD_SANDBOX_GID when set, else
 * the sandbox directory's owner when that is not root, else nobody (65534). Never uid or gid 0.
 */
export function sandboxUserFor(owner: { uid: number; gid: number }): SandboxUser {
  const uid = configuredId('SCRATCHPAD_SANDBOX_UID');
  if (uid !== undefined) return { uid, gid: configuredId('SCRATCHPAD_SANDBOX_GID') ?? uid };
  if (owner.uid !== 0) return { uid: owner.uid, gid: owner.gid !== 0 ? owner.gid : owner.uid };
  return { uid: DEFAULT_SANDBOX_ID, gid: configuredId('SCRATCHPAD_SANDBOX_GID') ?? DEFAULT_SANDBOX_ID };
}

function configuredId(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const id = Number(value);
  if (!/^\d+$/.test(value) || id === 0 || id >= 2 ** 32 - 1) {
    throw new Error(`${name}=${value} is not an unprivileged id: give a number other than 0 (e.g. 65534)`);
  }
  return id;
}

/**
 * For a root worker, hands the sandbox directory to the sandbox user (so programs run as that user can write it):
 * the directory and what in it belonged to its previous owner or to root. Returns the user; undefined for a worker
 * that is not root, whose sandbox runs as itself inside a user namespace.
 */
export async function claimSandbox(root: string): Promise<SandboxUser | undefined> {
  if (!isRootWorker()) return undefined;
  const owner = await fs.lstat(root);
  const user = sandboxUserFor(owner);
  if (owner.uid !== user.uid || owner.gid !== user.gid) {
    if (SYSTEM_DIRECTORIES.has(root)) {
      throw new Error(
        `refusing to give ${root} to uid ${user.uid}: point SCRATCHPAD_SANDBOX at a directory of its own`,
      );
    }
    await transferOwnership(root, new Set([0, owner.uid]), user);
  }
  return user;
}

// A sandbox set to one of these by mistake must not hand the system to the sandbox user.
const SYSTEM_DIRECTORIES = new Set(
  '/ /bin /boot /dev /etc /home /lib /lib64 /opt /proc /root /run /sbin /srv /sys /tmp /usr /var'.split(' '),
);
