import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { z } from 'zod';
import type { Observation } from '../../core/observation';
import type { TOOL_ARGS } from '../../core/tools';
import { decodeUtf8 } from './decode-text';
import { errorMessage } from '../../common/error-message';
import { resolveInSandbox } from './sandbox';
import type { ToolOptions } from './types';

/** Files larger than this are refused by `fs_read` rather than loaded into the worker's memory. */
export const FS_READ_MAX_BYTES = 10 * 1024 * 1024;

/** `fs_read`: a file inside the sandbox, as UTF-8 text when it is valid UTF-8 (unless binary is asked), else base64. */
export async function fsRead(args: z.infer<typeof TOOL_ARGS.fs_read>, options: ToolOptions): Promise<Observation> {
  const target = await resolveInSandbox(args.path, options.sandboxRoot);
  const stat = await fs.stat(target.absolute).catch((error: unknown) => {
    throw describeFsError(error, target.relative);
  });
  if (stat.isDirectory()) return { ok: false, error: `is a directory, not a file: ${target.relative}` };
  if (!stat.isFile()) return { ok: false, error: `not a regular file: ${target.relative}` };
  if (stat.size > FS_READ_MAX_BYTES) {
    return {
      ok: false,
      error: `file is ${stat.size} bytes; fs_read reads at most ${FS_READ_MAX_BYTES}: ${target.relative}`,
    };
  }
  const buffer = await fs.readFile(target.absolute);
  const text = args.encoding === 'binary' ? undefined : decodeUtf8(buffer);
  if (text === undefined) {
    return {
      ok: true,
      result: buffer.toString('base64'),
      path: target.relative,
      bytes: buffer.length,
      encoding: 'binary',
    };
  }
  return { ok: true, result: text, path: target.relative, bytes: buffer.length, encoding: 'utf-8' };
}

/** `fs_write`: replaces a file inside the sandbox with UTF-8 text, creating parent directories. */
export async function fsWrite(args: z.infer<typeof TOOL_ARGS.fs_write>, options: ToolOptions): Promise<Observation> {
  const target = await resolveInSandbox(args.path, options.sandboxRoot);
  const bytes = Buffer.byteLength(args.content, 'utf-8');
  try {
    await fs.mkdir(path.dirname(target.absolute), { recursive: true });
    await fs.writeFile(target.absolute, args.content, 'utf-8');
  } catch (error) {
    throw describeFsError(error, target.relative);
  }
  return { ok: true, result: `wrote ${bytes} bytes to ${target.relative}`, path: target.relative, bytes };
}

// Node's messages name the host's absolute path; the model only knows sandbox-relative ones.
function describeFsError(error: unknown, relative: string): Error {
  const messages: Record<string, string> = {
    ENOENT: 'no such file',
    EISDIR: 'is a directory, not a file',
    ENOTDIR: 'a parent of this path is a file, not a directory',
    EACCES: 'permission denied',
    EEXIST: 'a file is in the way',
  };
  const code = (error as NodeJS.ErrnoException).code;
  const message = code ? messages[code] : undefined;
  return new Error(message ? `${message}: ${relative}` : errorMessage(error));
}
