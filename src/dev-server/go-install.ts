import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { packageRoot } from '../config/paths';

/** The Temporal CLI release built from source (see {@link TEMPORAL_CLI_BUILD}) when no binary can be had otherwise. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/**
 * What the built CLI is: the release above with a newer SQLite driver than the one it pins (modernc.org/sqlite
 * v1.34.1, fixed in v1.40.1). That driver, when a call's deadline passed just as its query returned a first row,
 * dropped the row cursor without closing it; the connection's interrupt then stayed set for every later statement, and
 * the dev server, which runs all of its persistence on one connection, answered every call with "interrupted (9)"
 * until restarted. `deploy/temporal-cli/go.mod` pins the versions (a unit test holds the two to each other).
 */
export const TEMPORAL_CLI_BUILD = `${TEMPORAL_CLI_MODULE} with modernc.org/sqlite v1.57.0`;

/** The Go module that pins {@link TEMPORAL_CLI_BUILD}'s dependencies (go.mod and go.sum), shipped with the package. */
export function temporalCliBuildModule(): string {
  return path.join(packageRoot(), 'deploy', 'temporal-cli');
}

function buildArgs(binary: string): string[] {
  const [pkg, version] = TEMPORAL_CLI_MODULE.split('@') as [string, string];
  // `temporal --version` names the release, as the official build's does, rather than 0.0.0-DEV; no symbol table or
  // debug information, as in the official build (213 MB instead of 252).
  const ldflags = `-s -w -X github.com/temporalio/cli/temporalcli.Version=${version.replace(/^v/, '')}`;
  // -mod=readonly: the shipped go.sum holds every dependency's hash, so what the build fetches is verified.
  return ['build', '-mod=readonly', '-trimpath', `-ldflags=${ldflags}`, '-o', binary, pkg];
}

let buildOrigin: string | undefined;

/**
 * What a binary built now is made from: the build, and a digest of the module's go.mod and go.sum and of the build's
 * flags, so that a copy built from other pins or flags is told apart and made again.
 */
export function temporalCliBuildOrigin(): string {
  // The module's files do not change while a process runs: read and hashed once, not at every provisioning.
  if (buildOrigin === undefined) {
    const digest = createHash('sha256');
    for (const file of ['go.mod', 'go.sum']) digest.update(fs.readFileSync(path.join(temporalCliBuildModule(), file)));
    digest.update(buildArgs('temporal').join(' '));
    buildOrigin = `build ${TEMPORAL_CLI_BUILD} (${digest.digest('hex').slice(0, 12)})`;
  }
  return buildOrigin;
}

/** The oldest Go release that builds {@link TEMPORAL_CLI_MODULE}. */
export const MINIMUM_GO = { major: 1, minor: 25 };

/** The version `go version` reports, or undefined when no Go toolchain runs. */
export async function goVersion(
  env: NodeJS.ProcessEnv,
): Promise<{ major: number; minor: number; text: string } | undefined> {
  try {
    const { stdout } = await promisify(execFile)('go', ['version'], { env, timeout: 30_000 });
    const match = /go(\d+)\.(\d+)/.exec(stdout);
    if (!match) return undefined;
    return { major: Number(match[1]), minor: Number(match[2]), text: `go${match[1]}.${match[2]}` };
  } catch {
    return undefined;
  }
}

/** Whether this Go release is recent enough to build the CLI. */
export function isGoRecentEnough(version: { major: number; minor: number }): boolean {
  return version.major > MINIMUM_GO.major || (version.major === MINIMUM_GO.major && version.minor >= MINIMUM_GO.minor);
}

/** Builds {@link TEMPORAL_CLI_BUILD} into `binary`, streaming go's output and a heartbeat to `log`. */
export function goBuildTemporalCli(binary: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  // This module alone, whatever workspace (go.work) the user's directories have.
  return runGo(buildArgs(binary), { cwd: temporalCliBuildModule(), env: { ...env, GOWORK: 'off' } }, log);
}

/** `go install` of `modules` (path@version) into `binDirectory`, streaming go's output and a heartbeat to `log`. */
export function goInstall(
  modules: string[],
  binDirectory: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  return runGo(['install', ...modules], { env: { ...env, GOBIN: binDirectory } }, log);
}

async function runGo(
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv },
  log: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  const child = spawn('go', args, {
    cwd: options.cwd,
    // CGO off: a static binary that needs no C toolchain and runs on any Linux of the same arch.
    env: { ...options.env, CGO_ENABLED: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      log(line);
    });
  }
  const heartbeat = setInterval(
    () => log(`go ${args[0]} still running (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`go ${args[0]} exited with code ${code}: ${tail.slice(-5).join(' | ')}`);
  } finally {
    clearInterval(heartbeat);
  }
  log(`go ${args[0]} finished in ${Math.round((Date.now() - started) / 1000)} s`);
}
