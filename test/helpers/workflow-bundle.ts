import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type WorkflowBundleOption, type WorkflowBundleWithSourceMap, bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/config/paths';
import { quietBundlerLogger } from '../../src/workers/bundle-cache';

/** Where test/global-setup.ts leaves the run's workflow bundle for the test files. */
const BUNDLE_VARIABLE = 'SCRATCHPAD_TEST_WORKFLOW_BUNDLE';

/** Bundles the project's workflow code as a worker would (webpack: seconds of CPU each time). */
export function buildWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
}

/**
 * The compiled tree's workflow bundle (dist/, `npm run build` first), with telemetry's interceptor modules or none,
 * from the bundle cache, as `scratchpad` commands find it: bundled in a process of its own when the cache has none. Test
 * workers run it too, so that a run bundles the workflow code once rather than once for the source tree and again for
 * the commands (webpack: several seconds of CPU each). Its path, or undefined when no private cache folder can be had.
 */
export function compiledBundle(interceptors: 'none' | 'telemetry' = 'none'): Promise<string | undefined> {
  const root = path.resolve(__dirname, '..', '..');
  const modules = interceptors === 'telemetry' ? "require('./dist/src/telemetry').telemetryWorkflowModules()" : '[]';
  const script =
    "const c = require('./dist/src/workers/bundle-cache'); const d = c.bundleCacheDirectory(); " +
    `if (d) c.cachedWorkflowBundle(d, ${modules}).then((b) => process.stdout.write(b.codePath), ` +
    '(e) => { console.error(e); process.exitCode = 1; });';
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', script], { cwd: root }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`bundling dist/ failed (run npm run build first): ${stderr}`))
        : resolve(stdout || undefined),
    ),
  );
}

/**
 * Bundles once for the whole jest run (global setup): the compiled tree's bundle, which every test file's workers and
 * every command of the run load. `directory` holds a bundle of the source tree when the cache folder is refused.
 */
export async function bundleForRun(directory: string): Promise<void> {
  let file = await compiledBundle();
  if (!file) {
    file = path.join(directory, 'workflow-bundle.js');
    await fs.writeFile(file, (await buildWorkflowBundle()).code);
  }
  process.env[BUNDLE_VARIABLE] = file;
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
