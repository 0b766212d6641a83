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
