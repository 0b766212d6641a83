import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type WorkflowBundleOption, type WorkflowBundleWithSourceMap, bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/config/paths';
import { bundleCacheDirectory, cachedWorkflowBundle, quietBundlerLogger } from '../../src/workers/bundle-cache';

/** Where test/global-setup.ts leaves the run's workflow bundle for the test files. */
const BUNDLE_VARIABLE = 'SCRATCHPAD_TEST_WORKFLOW_BUNDLE';

/** Bundles the project's workflow code as a worker would (webpack: seconds of CPU each time). */
export function buildWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
}

/** The compiled CLI's bundle cached as `scratchpad` commands find it, so the first commands of a run do not bundle. */
function warmCompiledBundle(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const script =
    "const c = require('./dist/src/workers/bundle-cache'); const d = c.bundleCacheDirectory(); " +
    'if (d) c.cachedWorkflowBundle(d).catch((e) => { console.error(e); process.exitCode = 1; });';
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', script], { cwd: root }, (error, _stdout, stderr) =>
      error ? reject(new Error(`bundling dist/ failed (run npm run build first): ${stderr}`)) : resolve(),
    ),
  );
}

/**
 * Bundles once for the whole jest run (global setup), into the bundle cache workers use, so every test file reads that
 * file and `createWorker` in a test finds it too; meanwhile, in a process of its own, the compiled CLI's bundle.
 * `directory` holds the bundle when the cache folder is refused.
 */
export async function bundleForRun(directory: string): Promise<void> {
  const compiled = warmCompiledBundle();
  const cache = bundleCacheDirectory();
  const file = cache ? (await cachedWorkflowBundle(cache)).codePath : path.join(directory, 'workflow-bundle.js');
  if (!cache) await fs.writeFile(file, (await buildWorkflowBundle()).code);
  process.env[BUNDLE_VARIABLE] = file;
  await compiled;
}

/**
 * The run's bundle when global setup made one (the main suite), else a bundle of its own (the fault suite). By path:
 * given the code instead, a worker re-encodes its inline source map to name a file (about 30 ms each).
 */
export async function workflowBundle(): Promise<WorkflowBundleOption> {
  const file = process.env[BUNDLE_VARIABLE];
  if (file) return { codePath: file };
  return buildWorkflowBundle();
}

/** The run's bundle as code, for worker processes that load it from a file of their own. */
export async function workflowBundleCode(): Promise<string> {
  const file = process.env[BUNDLE_VARIABLE];
  return file ? fs.readFile(file, 'utf8') : (await buildWorkflowBundle()).code;
}
