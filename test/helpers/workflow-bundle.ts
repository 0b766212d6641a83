import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type WorkflowBundleWithSourceMap, bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/config/paths';
import { quietBundlerLogger } from '../../src/workers/bundle-cache';

/** Where test/global-setup.ts leaves the run's workflow bundle for the test files. */
const BUNDLE_VARIABLE = 'SCRATCHPAD_TEST_WORKFLOW_BUNDLE';

/** Bundles the project's workflow code as a worker would (webpack: seconds of CPU each time). */
export function buildWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
}

/**
 * Bundles once for the whole jest run (global setup) into `directory`; every test file then reads that file instead
 * of bundling the same code again.
 */
export async function bundleForRun(directory: string): Promise<void> {
  const file = path.join(directory, 'workflow-bundle.js');
  await fs.writeFile(file, (await buildWorkflowBundle()).code);
  process.env[BUNDLE_VARIABLE] = file;
}

/** The run's bundle when global setup made one (the main suite), else a bundle of its own (the fault suite). */
export async function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  const file = process.env[BUNDLE_VARIABLE];
  // The source map is inline in the code; the field is deprecated and unread.
  if (file) return { code: await fs.readFile(file, 'utf8'), sourceMap: '' };
  return buildWorkflowBundle();
}
