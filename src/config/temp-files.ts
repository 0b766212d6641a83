import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * `directory` (by default `name-<uid>` in the temporary directory), made if missing; undefined when it is not this
 * user's alone. What is kept there runs as this user's code, so a folder another user made first, or may write, is not
 * used.
 */
export function privateTempDirectory(name: string, directory?: string): string | undefined {
  const uid = process.getuid?.() ?? 0;
  directory ??= path.join(os.tmpdir(), `${name}-${uid}`);
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(directory);
  if (!stat.isDirectory() || (process.getuid && stat.uid !== uid) || (stat.mode & 0o077) !== 0) return undefined;
  return directory;
}

/**
 * Writes `data` to `file` through a file of its own beside it, then renamed: a process reading meanwhile never sees half
 * of it, and processes writing at once (the same pid in two containers sharing the folder) never write one file.
 */
export function writeAside(file: string, data: string | NodeJS.ArrayBufferView, mode = 0o666): void {
  const partial = `${file}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(partial, data, { mode, flag: 'wx' });
  fs.renameSync(partial, file);
}

/** Removes what in `folder` was last modified before `before` (epoch ms), but for the names `keep` takes. */
export function removeStale(folder: string, before: number, keep: (name: string) => boolean): void {
  for (const name of fs.readdirSync(folder)) {
    if (keep(name)) continue;
    const file = path.join(folder, name);
    // Another process may have renamed or removed it meanwhile.
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && stat.mtimeMs < before) fs.rmSync(file, { recursive: true, force: true });
  }
}
