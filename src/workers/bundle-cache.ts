import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type WorkerOptions, bundleWorkflowCode } from '@temporalio/worker';
import { privateTempDirectory, removeStale, writeAside } from '../config/temp-files';
import { withFileLock } from '../dev-server/file-lock';
import { WORKFLOWS_PATH, packageRoot, workflowBundleOptions, workflowWorkerOptions } from '../config/paths';

const PREFIX = 'workflow-bundle-';
const STALE_MS = 24 * 60 * 60 * 1000;
/** How long a command waits for another process's bundle of the same code: webpack takes seconds. */
const LOCK_TIMEOUT_MS = 5 * 60_000;

/** The bundler's logger for a bundle built in the background of a command: errors only. */
export const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

/** Every file below `directory`, with its size and modification time: what the bundle is built from. */
function sourceStamp(directory: string, hash: ReturnType<typeof createHash>): void {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) sourceStamp(file, hash);
    else if (/\.[cm]?[jt]s$/.test(entry.name)) {
      const stat = fs.statSync(file);
      hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
    }
  }
}

/**
 * The bundle's key: this package's code and version, the SDKs' versions, the interceptor modules, and which
 * bundler call built it (`origin`: a command's or a plugin worker's, whose options differ).
 */
function bundleKey(interceptorModules: readonly string[], origin: string): string {
  const hash = createHash('sha256');
  hash.update(origin);
  for (const module of interceptorModules) hash.update(`${module}\n`);
  const root = packageRoot();
  hash.update(fs.readFileSync(path.join(root, 'package.json')));
  // The workflow SDK bundled, and the worker SDK's bundler (peers a user may upgrade apart).
  hash.update(fs.readFileSync(require.resolve('@temporalio/workflow/package.json')));
  hash.update(fs.readFileSync(require.resolve('@temporalio/worker/package.json')));
  // The compiled (or, under a TypeScript loader, source) tree the workflows and everything they import sit in.
  sourceStamp(path.dirname(path.dirname(WORKFLOWS_PATH)), hash);
  return hash.digest('hex').slice(0, 20);
}

/**
 * Where bundles are kept: `directory`, by default a folder of this user's own in the temporary directory, shared by
 * every data directory (a bundle depends on the code only). Undefined when that folder is not this user's alone: code
 * another user could write there would run in the worker.
 */
export function bundleCacheDirectory(directory?: string): string | undefined {
  return privateTempDirectory('durable-scratchpad-bundles', directory);
}

/**
 * This package's workflow bundle from `directory`, built there first when this code has none yet (by one process: others
 * asking meanwhile wait for it): each command that runs a worker then skips webpack (seconds of CPU) unless the code
 * changed. Bundles of other code a day old go. A worker with telemetry on bundles its interceptor modules too, as a
 * bundle of its own.
 */
export async function cachedWorkflowBundle(
  directory: string,
  workflowInterceptorModules: readonly string[] = [],
): Promise<{ codePath: string }> {
  const codePath = keptBundlePath(directory, workflowInterceptorModules, '');
  if (fs.existsSync(codePath)) return { codePath };
  // Commands (or workers) started together would each run webpack for the same bundle.
  return withFileLock(
    `${codePath}.lock`,
    () => undefined,
    () => bundleInto(directory, codePath, workflowInterceptorModules),
    LOCK_TIMEOUT_MS,
  );
}

async function bundleInto(
  directory: string,
  codePath: string,
  workflowInterceptorModules: readonly string[],
): Promise<{ codePath: string }> {
  if (fs.existsSync(codePath)) return { codePath };
  const { code } = await bundleWorkflowCode({
    ...workflowBundleOptions(),
    workflowInterceptorModules: [...workflowInterceptorModules],
    logger: quietBundlerLogger,
  });
  keepBundle(codePath, code);
  return { codePath };
}

/** Where the bundle of this code, these interceptor modules and this bundler call is kept in `directory`. */
export function keptBundlePath(directory: string, interceptorModules: readonly string[], origin: string): string {
  return path.join(directory, `${PREFIX}${bundleKey(interceptorModules, origin)}.js`);
}

/** Keeps `code` at `codePath` (from {@link keptBundlePath}); bundles of other code go once a day old. */
export function keepBundle(codePath: string, code: string): void {
  const directory = path.dirname(codePath);
  fs.mkdirSync(directory, { recursive: true });
  writeAside(codePath, code);
  // Not at once: a worker of another build on this host may be loading one right now.
  removeStale(directory, Date.now() - STALE_MS, (name) => !name.startsWith(PREFIX) || name === path.basename(codePath));
}

/**
 * The workflow code a worker runs: a bundle kept between commands, so one that starts a worker does not run webpack
 * again each time; bundled at start as before where no private folder for it can be had. `interceptorModules`: those
 * telemetry adds, which a prebuilt bundle must include.
 */
export async function workflowCode(interceptorModules: readonly string[]): Promise<Partial<WorkerOptions>> {
  const directory = bundleCacheDirectory();
  if (directory) return { workflowBundle: await cachedWorkflowBundle(directory, interceptorModules) };
  // Bundled at start, the plugins add their interceptor modules themselves.
  return workflowWorkerOptions();
}
