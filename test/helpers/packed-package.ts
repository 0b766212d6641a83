import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../../src/dev-server/file-lock';

/** The folder global setup made for the run (test/global-setup.ts); the packed package is kept there. */
export const RUN_DIRECTORY_VARIABLE = 'SCRATCHPAD_TEST_RUN_DIR';

const ROOT = path.resolve(__dirname, '../..');

export interface PackedPackage {
  tarball: string;
  /** The paths `npm pack` put in it. */
  files: string[];
}

/** `npm pack` of the package in `directory` into `destination`, without its scripts: what it packed. */
export async function npmPack(directory: string, destination: string): Promise<PackedPackage> {
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', destination];
  const { stdout } = await promisify(execFile)('npm', args, { cwd: directory, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: path.join(destination, packed!.filename), files: packed!.files.map((file) => file.path) };
}

/**
 * The package as `npm pack` makes it from this build: `npm pack` of this repository takes about 4 s of CPU, and the
 * packed-install tests all install the same tarball, so a run packs it once (by one jest worker, the others waiting)
 * and each test installs its own copy from it. Outside a run's global setup it is packed into `ownFolder`, which the
 * caller removes.
 */
export async function packedPackage(ownFolder: string): Promise<PackedPackage> {
  const runDirectory = process.env[RUN_DIRECTORY_VARIABLE];
  const folder = runDirectory ? path.join(runDirectory, 'packed') : ownFolder;
  await fs.mkdir(folder, { recursive: true });
  const record = path.join(folder, 'packed.json');
  return withFileLock(
    `${record}.lock`,
    () => undefined,
    async () => {
      const kept = await fs.readFile(record, 'utf8').catch(() => undefined);
      if (kept) return JSON.parse(kept) as PackedPackage;
      // The build is already there; `prepare` would rebuild it under other tests' feet.
      const result = await npmPack(ROOT, folder);
      await fs.writeFile(record, JSON.stringify(result));
      return result;
    },
    5 * 60_000,
  );
}
