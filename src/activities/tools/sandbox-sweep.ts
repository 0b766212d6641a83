import type { Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
// Linux's O_PATH, which Node does not export: a descriptor of the inode itself, opened without read permission.
const O_PATH = 0o10000000;
const SETUID_SETGID = 0o6000;

/** Most entries one walk of the sandbox looks at; past it the sweep says it stopped. */
export const SWEEP_MAX_ENTRIES = 200_000;
const LSTAT_BATCH = 64;

/** One entry, reached through its directory's descriptor (`at`), never through a path a symlink could redirect. */
interface Entry {
  at: string;
  relative: string;
  stat: Stats;
}

/** What a sweep changed: files and directories whose setuid/setgid bits it cleared, with their owners. */
export interface SweepReport {
  cleared: { path: string; uid: number }[];
  /** False when the walk stopped at {@link SWEEP_MAX_ENTRIES}. */
  complete: boolean;
}

/**
 * Clears the setuid and setgid bits of every file and directory in the sandbox, so nothing a sandboxed program left
 * there runs with its owner's privileges on the host. Run after each confined run, once its processes are gone.
 */
export async function sweepPrivilegedBits(root: string): Promise<SweepReport> {
  const cleared: SweepReport['cleared'] = [];
  const { complete } = await walk(root, async (entry) => {
    if ((entry.stat.mode & SETUID_SETGID) === 0) return;
    if (await clearBits(entry)) cleared.push({ path: entry.relative, uid: entry.stat.uid });
  });
  const top = await fs.lstat(root);
  if ((top.mode & SETUID_SETGID) !== 0 && (await clearBits({ at: root, relative: '.', stat: top }))) {
    cleared.push({ path: '.', uid: top.uid });
  }
  return { cleared, complete };
}

// chmod through the O_PATH descriptor's /proc link: the inode just checked, even if the name now is a symlink.
async function clearBits(entry: Entry): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await fs.open(entry.at, O_PATH | O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const stat = await handle.stat();
    if (stat.ino !== entry.stat.ino || stat.dev !== entry.stat.dev || !(stat.isFile() || stat.isDirectory())) {
      return false;
    }
    await fs.chmod(`/proc/self/fd/${handle.fd}`, stat.mode & 0o1777);
    return true;
  } finally {
    await handle.close();
  }
}

/** Gives the sandbox directory, and every entry in it owned by one of `from`, to `to` (symlinks themselves). */
export async function transferOwnership(root: string, from: ReadonlySet<number>, to: { uid: number; gid: number }) {
  await walk(root, async (entry) => {
    if (from.has(entry.stat.uid)) await fs.lchown(entry.at, to.uid, to.gid);
  });
  const handle = await fs.open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    await handle.chown(to.uid, to.gid);
  } finally {
    await handle.close();
  }
}

interface Frame {
  handle: FileHandle;
  relative: string;
  directories: string[];
}

/**
 * Visits every entry under `root` without following symlinks. Each directory is held open and its entries are
 * reached through `/proc/self/fd/<fd>/<name>`, so a directory swapped for a symlink mid-walk leads nowhere else;
 * descriptors held are one per level.
 */
async function walk(root: string, visit: (entry: Entry) => Promise<void>): Promise<{ complete: boolean }> {
  const stack: Frame[] = [];
  let seen = 0;
  const enter = async (handle: FileHandle, relative: string): Promise<void> => {
    const names = await fs.readdir(`/proc/self/fd/${handle.fd}`).catch(() => [] as string[]);
    const frame: Frame = { handle, relative, directories: [] };
    stack.push(frame);
    for (let start = 0; start < names.length && seen < SWEEP_MAX_ENTRIES; start += LSTAT_BATCH) {
      const batch = names.slice(start, Math.min(start + LSTAT_BATCH, start + SWEEP_MAX_ENTRIES - seen));
      seen += batch.length;
      const entries = await Promise.all(
        batch.map(async (name) => {
          const at = `/proc/self/fd/${handle.fd}/${name}`;
          const stat = await fs.lstat(at).catch(() => undefined);
          return stat && { at, relative: relative ? `${relative}/${name}` : name, stat, name };
        }),
      );
      for (const entry of entries) {
        if (entry === undefined) continue;
        await visit(entry);
        if (entry.stat.isDirectory()) frame.directories.push(entry.name);
      }
    }
  };
  await enter(await fs.open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), '');
  try {
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      const name = top.directories.shift();
      if (name === undefined) {
        await stack.pop()!.handle.close();
        continue;
      }
      const child = await fs
        .open(`/proc/self/fd/${top.handle.fd}/${name}`, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        .catch(() => undefined);
      if (child) await enter(child, top.relative ? `${top.relative}/${name}` : name);
    }
  } finally {
    await Promise.all(stack.splice(0).map((frame) => frame.handle.close()));
  }
  return { complete: seen < SWEEP_MAX_ENTRIES };
}
