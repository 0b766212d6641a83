import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** A user path resolved inside the sandbox. */
export interface SandboxPath {
  /** Real absolute path to act on (symlinks of existing ancestors resolved). */
  absolute: string;
  /** The path relative to the sandbox root, as the model should see it. */
  relative: string;
}

/** Thrown for any path that would leave the sandbox; its message is meant for the model. */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** Creates the sandbox root if missing and returns its real path. */
export async function ensureSandboxRoot(sandboxRoot: string): Promise<string> {
  await fs.mkdir(sandboxRoot, { recursive: true });
  return fs.realpath(sandboxRoot);
}

/**
 * Resolves `userPath` inside the sandbox, refusing absolute paths, `..` that escapes, and symlinks
 * (of the target or any existing ancestor) that lead outside.
 */
export async function resolveInSandbox(userPath: string, sandboxRoot: string): Promise<SandboxPath> {
  if (userPath.includes('\0')) throw new SandboxError('path contains a NUL byte');
  if (path.isAbsolute(userPath)) {
    throw new SandboxError(`absolute paths are not allowed: ${userPath} (use a path relative to the sandbox root)`);
  }
  const root = await ensureSandboxRoot(sandboxRoot);
  const lexical = path.resolve(root, userPath);
  if (!isInside(root, lexical)) throw new SandboxError(`path escapes the sandbox: ${userPath}`);

  const { existing, rest } = await nearestExisting(lexical, root);
  let real: string;
  try {
    real = await fs.realpath(existing);
  } catch {
    // lstat found it but realpath cannot: a dangling symlink, which a write would follow anywhere.
    throw new SandboxError(`path is a dangling symlink: ${userPath}`);
  }
  if (!isInside(root, real)) throw new SandboxError(`path escapes the sandbox through a symlink: ${userPath}`);
  return { absolute: path.join(real, ...rest), relative: path.relative(root, lexical) || '.' };
}

/** True when `candidate` is `root` or below it. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..' + path.sep) && relative !== '..' && !path.isAbsolute(relative));
}

async function nearestExisting(target: string, root: string): Promise<{ existing: string; rest: string[] }> {
  const rest: string[] = [];
  let current = target;
  while (current !== root) {
    try {
      await fs.lstat(current);
      return { existing: current, rest };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    rest.unshift(path.basename(current));
    current = path.dirname(current);
  }
  return { existing: root, rest };
}
