import * as fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { claimSandbox } from './sandbox-user';

const { O_RDONLY, O_WRONLY, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fs.constants;

/** Longest path the file tools accept (Linux's PATH_MAX). */
export const SANDBOX_PATH_MAX = 4096;
const MAX_SYMLINKS = 40;

/** Thrown for any path that would leave the sandbox or cannot be used; its message is meant for the model. */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** Creates the sandbox root if missing, gives it to the sandbox user (a root worker's), and returns its real path. */
export async function ensureSandboxRoot(sandboxRoot: string): Promise<string> {
  await fs.mkdir(sandboxRoot, { recursive: true });
  const root = await fs.realpath(sandboxRoot);
  await claimSandbox(root);
  return root;
}

/** A regular file opened inside the sandbox. */
export interface SandboxFile {
  handle: FileHandle;
  size: number;
  /** The path relative to the sandbox root, as the model should see it. */
  relative: string;
}

/**
 * Opens `userPath` inside the sandbox for reading, or for writing (created with its parent directories).
 *
 * Node has no openat, so each component is opened with O_NOFOLLOW through `/proc/self/fd/<parent fd>/<name>`:
 * the walk holds a descriptor of every directory it passed, so swapping a directory for a symlink between two
 * steps changes nothing, and a symlink is read and resolved by the walk itself, never by the kernel. FIFOs open
 * non-blocking and are refused with other non-regular files; a file with other hard links may be one outside.
 */
export async function openInSandbox(
  userPath: string,
  sandboxRoot: string,
  mode: 'read' | 'write',
): Promise<SandboxFile> {
  const relative = lexicalRelative(userPath);
  const root = await ensureSandboxRoot(sandboxRoot);
  const walk = new Walk(root, userPath, relative, mode);
  try {
    return { ...(await walk.open(relative === '.' ? [] : relative.split('/'))), relative };
  } finally {
    await walk.close();
  }
}

/** `userPath` as a normalized sandbox-relative path; throws a SandboxError for one that is absolute or climbs out. */
export function lexicalRelative(userPath: string): string {
  if (userPath.includes('\0')) throw new SandboxError('path contains a NUL byte');
  if (path.isAbsolute(userPath)) {
    throw new SandboxError(`absolute paths are not allowed: ${userPath} (use a path relative to the sandbox root)`);
  }
  if (userPath.length > SANDBOX_PATH_MAX) {
    throw new SandboxError(`path is ${userPath.length} characters; at most ${SANDBOX_PATH_MAX} are allowed`);
  }
  const relative = path.posix.normalize(userPath).replace(/\/+$/, '') || '.';
  if (relative === '..' || relative.startsWith('../')) throw new SandboxError(`path escapes the sandbox: ${userPath}`);
  return relative;
}

class Walk {
  private readonly directories: FileHandle[] = [];
  private links = 0;

  constructor(
    private readonly root: string,
    private readonly userPath: string,
    private readonly relative: string,
    private readonly mode: 'read' | 'write',
  ) {}

  async open(components: string[]): Promise<{ handle: FileHandle; size: number }> {
    this.directories.push(await fs.open(this.root, O_RDONLY | O_DIRECTORY));
    const pending = [...components];
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === '.' || name === '') continue;
      if (name === '..') {
        if (this.directories.length === 1) throw this.escape();
        await this.directories.pop()!.close();
        continue;
      }
      const at = `/proc/self/fd/${this.directories.at(-1)!.fd}/${name}`;
      const last = pending.every((rest) => rest === '.' || rest === '');
      try {
        if (!last) this.directories.push(await this.openDirectory(at));
        else return await this.openFile(at);
      } catch (error) {
        const target = await readlinkOrThrow(at, error);
        if (++this.links > MAX_SYMLINKS) throw new SandboxError(`too many symlinks: ${this.relative}`);
        pending.unshift(...(await this.linkComponents(target)));
      }
    }
    throw new SandboxError(`is a directory, not a file: ${this.relative}`);
  }

  private async openDirectory(at: string): Promise<FileHandle> {
    try {
      return await fs.open(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (error) {
      if (this.mode !== 'write' || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // mkdir does not follow a symlink in its last component; a racing one makes it fail with EEXIST.
      await fs.mkdir(at).catch((mkdirError: NodeJS.ErrnoException) => {
        if (mkdirError.code !== 'EEXIST') throw mkdirError;
      });
      const created = await fs.open(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      await this.adopt(created);
      return created;
    }
  }

  // A root worker runs sandboxed programs as the sandbox's owner (sandbox-user.ts), who must be able to change this.
  private async adopt(handle: FileHandle): Promise<void> {
    if (process.getuid?.() !== 0) return;
    const owner = await this.directories[0]!.stat();
    if (owner.uid !== 0) await handle.chown(owner.uid, owner.gid);
  }

  private async openFile(at: string): Promise<{ handle: FileHandle; size: number }> {
    const flags = this.mode === 'read' ? O_RDONLY : O_WRONLY | O_CREAT;
    const handle = await fs.open(at, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o644);
    try {
      const stat = await handle.stat();
      if (stat.isDirectory()) throw new SandboxError(`is a directory, not a file: ${this.relative}`);
      if (!stat.isFile()) throw new SandboxError(`not a regular file: ${this.relative}`);
      if (stat.nlink > 1) {
        throw new SandboxError(
          `refused: ${this.relative} has ${stat.nlink} hard links, and another one may be outside the sandbox`,
        );
      }
      if (this.mode === 'write') await this.adopt(handle);
      return { handle, size: stat.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  // An absolute target is followed only when it points inside the root; `..` above the root escapes.
  private async linkComponents(target: string): Promise<string[]> {
    if (!path.isAbsolute(target)) return target.split('/');
    const inside = path.relative(this.root, target);
    if (inside === '..' || inside.startsWith('../') || path.isAbsolute(inside)) throw this.escape();
    while (this.directories.length > 1) await this.directories.pop()!.close();
    return inside.split('/');
  }

  private escape(): SandboxError {
    return new SandboxError(`path escapes the sandbox through a symlink: ${this.userPath}`);
  }

  async close(): Promise<void> {
    await Promise.all(this.directories.map((handle) => handle.close()));
  }
}

// Only a symlink is resolved by the walk; any other failure is the caller's error.
async function readlinkOrThrow(at: string, error: unknown): Promise<string> {
  if (error instanceof SandboxError) throw error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'EEXIST') throw error;
  try {
    return await fs.readlink(at);
  } catch {
    throw error;
  }
}
