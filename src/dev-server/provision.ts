import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { describeFetchError, downloadTemporalCli, officialDownloadUrl } from './cli-download';
import { withFileLock } from './file-lock';
import {
  goBuildTemporalCli,
  goVersion,
  isGoRecentEnough,
  MINIMUM_GO,
  TEMPORAL_CLI_BUILD,
  temporalCliBuildModule,
  temporalCliBuildOrigin,
} from './go-install';
import { errorMessage } from '../common/error-message';

/** Options of {@link ensureTemporalCli}; `env`, `downloadUrl` and `allowGoBuild` exist for tests. */
export interface ProvisionOptions {
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Archive to download; defaults to the official one for this platform, `null` skips the step. */
  downloadUrl?: string | null;
  allowGoBuild?: boolean;
}

interface Context {
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cachedBinary: string;
  downloadUrl: string | null | undefined;
  failures: string[];
}

const EXECUTABLE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const MINIMUM_GO_TEXT = `Go >= ${MINIMUM_GO.major}.${MINIMUM_GO.minor}`;

/** Default log: one line on stderr with a `[temporal]` prefix. */
export function logToStderr(line: string): void {
  process.stderr.write(`[temporal] ${line}\n`);
}

/** The directory the provisioned CLI is cached in: `$XDG_CACHE_HOME/durable-scratchpad/bin`. */
export function cliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'durable-scratchpad', 'bin');
}

/** The `--version` line of a working CLI at `binary`; throws with the reason it does not work. */
export async function temporalCliVersion(binary: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stdout } = await promisify(execFile)(binary, ['--version'], { env, timeout: 30_000 });
  const version = stdout.trim();
  if (!/^temporal version/.test(version)) throw new Error(`unexpected --version output "${version.slice(0, 80)}"`);
  return version;
}

function describeRunError(error: unknown): string {
  const { code, stderr, message } = error as { code?: string | number; stderr?: string; message: string };
  if (typeof code === 'string') return code;
  if (typeof code === 'number') return `exit code ${code}${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`;
  return message;
}

async function accept(context: Context, step: string, binary: string): Promise<string | undefined> {
  try {
    const version = await temporalCliVersion(binary, context.env);
    context.log(`using ${binary} (${version})`);
    return binary;
  } catch (error) {
    const reason = describeRunError(error);
    context.log(`${step}: ${binary} does not work (${reason})`);
    context.failures.push(`${step}: ${binary} does not work (${reason})`);
    return undefined;
  }
}

function fileExists(file: string, mode = fs.constants.F_OK): Promise<boolean> {
  return fs.access(file, mode).then(
    () => true,
    () => false,
  );
}

function skip(context: Context, reason: string): undefined {
  context.log(reason);
  context.failures.push(reason);
  return undefined;
}

async function fromEnvVar(context: Context): Promise<string | undefined> {
  const configured = context.env.TEMPORAL_CLI_PATH;
  if (!configured) return skip(context, 'TEMPORAL_CLI_PATH: not set');
  return accept(context, 'TEMPORAL_CLI_PATH', path.resolve(configured));
}

async function fromPath(context: Context): Promise<string | undefined> {
  for (const directory of (context.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(directory, EXECUTABLE);
    if (await fileExists(candidate, fs.constants.X_OK)) return accept(context, 'PATH', candidate);
  }
  return skip(context, 'PATH: no temporal on PATH');
}

/** Beside the cached binary: how it was made, so a copy made another way (an older build recipe) is made again. */
function originFile(context: Context): string {
  return `${context.cachedBinary}.origin`;
}

function downloadOrigin(url: string): string {
  return `download ${url}`;
}

async function fromCache(context: Context): Promise<string | undefined> {
  if (!(await fileExists(context.cachedBinary))) return skip(context, `cache: no copy at ${context.cachedBinary}`);
  const origin = (await fs.readFile(originFile(context), 'utf8').catch(() => '')).trim();
  const current = [temporalCliBuildOrigin(), ...(context.downloadUrl ? [downloadOrigin(context.downloadUrl)] : [])];
  if (!current.includes(origin)) {
    return skip(
      context,
      `cache: the copy at ${context.cachedBinary} is ${origin ? `from ${origin}` : 'of unknown origin'}`,
    );
  }
  return accept(context, 'cache', context.cachedBinary);
}

async function keep(context: Context, step: string, origin: string): Promise<string | undefined> {
  const binary = await accept(context, step, context.cachedBinary);
  if (binary) await fs.writeFile(originFile(context), `${origin}\n`);
  return binary;
}

async function fromDownload(context: Context): Promise<string | undefined> {
  const url = context.downloadUrl;
  if (!url) return skip(context, `download: no official build for ${process.platform}/${process.arch}`);
  context.log(`downloading the Temporal CLI from ${url}`);
  try {
    await downloadTemporalCli(url, context.cachedBinary);
  } catch (error) {
    return skip(context, `download: ${describeFetchError(error)}`);
  }
  return keep(context, 'download', downloadOrigin(url));
}

async function fromGoBuild(context: Context): Promise<string | undefined> {
  const go = await goVersion(context.env);
  if (!go) return skip(context, `go build: no Go toolchain on PATH (needs ${MINIMUM_GO_TEXT})`);
  if (!isGoRecentEnough(go)) return skip(context, `go build: ${go.text} is older than ${MINIMUM_GO_TEXT}`);
  if (!(await fileExists(path.join(temporalCliBuildModule(), 'go.mod')))) {
    return skip(context, `go build: no build module at ${temporalCliBuildModule()} (an incomplete install?)`);
  }
  context.log(`building ${TEMPORAL_CLI_BUILD} (${go.text}) into ${context.cachedBinary}`);
  context.log('this takes several minutes the first time (later runs use the cached binary)');
  try {
    await goBuildTemporalCli(context.cachedBinary, context.env, context.log);
  } catch (error) {
    return skip(context, `go build: ${errorMessage(error)}`);
  }
  return keep(context, 'go build', temporalCliBuildOrigin());
}

/** A cached copy made another way still beats no CLI at all, when nothing newer could be had. */
async function fromStaleCache(context: Context): Promise<string | undefined> {
  if (!(await fileExists(context.cachedBinary))) return undefined;
  context.log(
    `no newer copy could be had: using the one at ${context.cachedBinary} as it is (its dev server may answer every ` +
      'call with "interrupted (9)" after a cancelled one, until restarted)',
  );
  return accept(context, 'cache', context.cachedBinary);
}

function noCliError(failures: string[]): Error {
  return new Error(
    'No working Temporal CLI could be found or provisioned. Tried:\n' +
      [...new Set(failures)].map((failure) => `  - ${failure}`).join('\n') +
      '\nDo one of:\n' +
      '  - install the Temporal CLI (`temporal`) on PATH\n' +
      '  - set TEMPORAL_CLI_PATH=/path/to/temporal\n' +
      '  - connect to the internet, so the official build can be downloaded\n' +
      `  - install ${MINIMUM_GO_TEXT}, so it can be built with go build (takes a few minutes once)`,
  );
}

/**
 * Path of a working `temporal` binary: `TEMPORAL_CLI_PATH`, then PATH, then the cache, then the official download,
 * then a build with Go ({@link TEMPORAL_CLI_BUILD}), then a cached copy made another way; each candidate is checked
 * with `--version`. A lock keeps concurrent processes from both building.
 */
export async function ensureTemporalCli(options: ProvisionOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const cachedBinary = path.join(cliCacheDir(env), EXECUTABLE);
  const downloadUrl = options.downloadUrl === undefined ? officialDownloadUrl() : options.downloadUrl;
  const context: Context = { log: options.log ?? logToStderr, env, cachedBinary, downloadUrl, failures: [] };
  const found = (await fromEnvVar(context)) ?? (await fromPath(context)) ?? (await fromCache(context));
  if (found) return found;
  await fs.mkdir(path.dirname(cachedBinary), { recursive: true });
  return withFileLock(`${cachedBinary}.lock`, context.log, async () => {
    // Another process may have filled the cache while we waited for the lock.
    const provisioned =
      (await fromCache(context)) ??
      (await fromDownload(context)) ??
      (options.allowGoBuild === false ? skip(context, 'go build: disabled') : await fromGoBuild(context)) ??
      (await fromStaleCache(context));
    if (!provisioned) throw noCliError(context.failures);
    return provisioned;
  });
}
