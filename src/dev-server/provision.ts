import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { describeFetchError, downloadTemporalCli, officialDownloadUrl } from './cli-download';
import { withFileLock } from './file-lock';
import { goInstallTemporalCli, goVersion, isGoRecentEnough, MINIMUM_GO, TEMPORAL_CLI_MODULE } from './go-install';
import { errorMessage } from '../common/error-message';

/** Options of {@link ensureTemporalCli}; `env`, `downloadUrl` and `allowGoInstall` exist for tests. */
export interface ProvisionOptions {
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Archive to download; defaults to the official one for this platform, `null` skips the step. */
  downloadUrl?: string | null;
  allowGoInstall?: boolean;
}

interface Context {
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cachedBinary: string;
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

async function fromCache(context: Context): Promise<string | undefined> {
  if (!(await fileExists(context.cachedBinary))) return skip(context, `cache: no copy at ${context.cachedBinary}`);
  return accept(context, 'cache', context.cachedBinary);
}

async function fromDownload(context: Context, url: string | null | undefined): Promise<string | undefined> {
  if (!url) return skip(context, `download: no official build for ${process.platform}/${process.arch}`);
  context.log(`downloading the Temporal CLI from ${url}`);
  try {
    await downloadTemporalCli(url, context.cachedBinary);
  } catch (error) {
    return skip(context, `download: ${describeFetchError(error)}`);
  }
  return accept(context, 'download', context.cachedBinary);
}

async function fromGoInstall(context: Context): Promise<string | undefined> {
  const go = await goVersion(context.env);
  if (!go) return skip(context, `go install: no Go toolchain on PATH (needs ${MINIMUM_GO_TEXT})`);
  if (!isGoRecentEnough(go)) return skip(context, `go install: ${go.text} is older than ${MINIMUM_GO_TEXT}`);
  context.log(`building ${TEMPORAL_CLI_MODULE} with ${go.text} into ${path.dirname(context.cachedBinary)}`);
  context.log('this takes several minutes the first time (later runs use the cached binary)');
  try {
    await goInstallTemporalCli(path.dirname(context.cachedBinary), context.env, context.log);
  } catch (error) {
    return skip(context, `go install: ${errorMessage(error)}`);
  }
  return accept(context, 'go install', context.cachedBinary);
}

function noCliError(failures: string[]): Error {
  return new Error(
    'No working Temporal CLI could be found or provisioned. Tried:\n' +
      failures.map((failure) => `  - ${failure}`).join('\n') +
      '\nDo one of:\n' +
      '  - install the Temporal CLI (`temporal`) on PATH\n' +
      '  - set TEMPORAL_CLI_PATH=/path/to/temporal\n' +
      '  - connect to the internet, so the official build can be downloaded\n' +
      `  - install ${MINIMUM_GO_TEXT}, so it can be built with go install (takes a few minutes once)`,
  );
}

/**
 * Path of a working `temporal` binary: `TEMPORAL_CLI_PATH`, then PATH, then the cache, then the official download,
 * then `go install`; each candidate is checked with `--version`. A lock keeps concurrent processes from both building.
 */
export async function ensureTemporalCli(options: ProvisionOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const cachedBinary = path.join(cliCacheDir(env), EXECUTABLE);
  const context: Context = { log: options.log ?? logToStderr, env, cachedBinary, failures: [] };
  const found = (await fromEnvVar(context)) ?? (await fromPath(context)) ?? (await fromCache(context));
  if (found) return found;
  await fs.mkdir(path.dirname(cachedBinary), { recursive: true });
  return withFileLock(`${cachedBinary}.lock`, context.log, async () => {
    const downloadUrl = options.downloadUrl === undefined ? officialDownloadUrl() : options.downloadUrl;
    // Another process may have filled the cache while we waited for the lock.
    const provisioned =
      ((await fileExists(cachedBinary)) ? await accept(context, 'cache', cachedBinary) : undefined) ??
      (await fromDownload(context, downloadUrl)) ??
      (options.allowGoInstall === false ? skip(context, 'go install: disabled') : await fromGoInstall(context));
    if (!provisioned) throw noCliError(context.failures);
    return provisioned;
  });
}
