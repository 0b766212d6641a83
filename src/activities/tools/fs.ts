import type { z } from 'zod';
import type { Observation } from '../../core/tools/observation';
import type { TOOL_ARGS } from '../../core/tools/catalogue';
import { decodeUtf8 } from './decode-text';
import { openInSandbox, SandboxError, type SandboxFile } from './sandbox';
import type { ToolOptions } from './types';

/** Files larger than this are refused by `fs_read` rather than loaded into the worker's memory. */
export const FS_READ_MAX_BYTES = 10 * 1024 * 1024;
/** Default cap on what `fs_write` accepts (SCRATCHPAD_FS_WRITE_MAX_BYTES). */
export const FS_WRITE_MAX_BYTES = 10 * 1024 * 1024;

/** `fs_read`: a file inside the sandbox, as UTF-8 text when it is valid UTF-8 (unless binary is asked), else base64. */
export async function fsRead(
  args: z.infer<ReturnType<typeof TOOL_ARGS.fs_read>>,
  options: ToolOptions,
): Promise<Observation> {
  const file = await open(args.path, options, 'read');
  try {
    if (file.size > FS_READ_MAX_BYTES) {
      return {
        ok: false,
        error: `file is ${file.size} bytes; fs_read reads at most ${FS_READ_MAX_BYTES}: ${file.relative}`,
      };
    }
    const buffer = await file.handle.readFile();
    const text = args.encoding === 'binary' ? undefined : decodeUtf8(buffer);
    const bytes = buffer.length;
    if (text === undefined) {
      return { ok: true, result: buffer.toString('base64'), path: file.relative, bytes, encoding: 'binary' };
    }
    return { ok: true, result: text, path: file.relative, bytes, encoding: 'utf-8' };
  } finally {
    await file.handle.close();
  }
}

/** `fs_write`: replaces a file inside the sandbox with UTF-8 text, creating parent directories. */
export async function fsWrite(
  args: z.infer<ReturnType<typeof TOOL_ARGS.fs_write>>,
  options: ToolOptions,
): Promise<Observation> {
  const maxBytes = options.fsWriteMaxBytes ?? FS_WRITE_MAX_BYTES;
  const bytes = Buffer.byteLength(args.content, 'utf-8');
  if (bytes > maxBytes) {
    return { ok: false, error: `content is ${bytes} bytes; fs_write writes at most ${maxBytes}: nothing written` };
  }
  const file = await open(args.path, options, 'write');
  try {
    await file.handle.truncate(0);
    await file.handle.writeFile(args.content, 'utf-8');
  } catch (error) {
    throw describeFsError(error, file.relative);
  } finally {
    await file.handle.close();
  }
  return { ok: true, result: `wrote ${bytes} bytes to ${file.relative}`, path: file.relative, bytes };
}

async function open(userPath: string, options: ToolOptions, mode: 'read' | 'write'): Promise<SandboxFile> {
  try {
    return await openInSandbox(userPath, options.sandboxRoot, mode);
  } catch (error) {
    throw describeFsError(error, userPath);
  }
}

// Node's messages name the host's absolute path (or /proc/self/fd/N); the model only knows sandbox-relative ones.
function describeFsError(error: unknown, relative: string): Error {
  if (error instanceof SandboxError) return error;
  const messages: Record<string, string> = {
    ENOENT: 'no such file',
    EISDIR: 'is a directory, not a file',
    ENOTDIR: 'a parent of this path is a file, not a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EEXIST: 'a file is in the way',
    ENXIO: 'not a regular file (a FIFO or socket)',
    ENAMETOOLONG: 'a name in this path is too long',
    ELOOP: 'too many symlinks',
    ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system',
  };
  const code = (error as NodeJS.ErrnoException).code;
  return new Error(`${(code && messages[code]) ?? `file operation failed (${code ?? 'unknown error'})`}: ${relative}`);
}
