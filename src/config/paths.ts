import * as fs from 'node:fs';
import * as path from 'node:path';

/** The workflow code's entry point, for bundling by a worker and for replay by the client. */
export const WORKFLOWS_PATH = require.resolve('../workflows');

/** The directory holding this package's package.json, whether running from src/ or dist/. */
export function packageRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error('cannot find the durable-scratchpad package root');
    directory = parent;
  }
  return directory;
}

/**
 * Workflow modules a worker evaluates once and shares among all the workflow executions it runs (the bundler's
 * `preloadModules`, with the SDK's default reusable V8 context). Otherwise the SDK gives every execution its own
 * copy of each module, evaluated when the workflow starts or is rebuilt after eviction: zod, every schema, every rule
 * and prompt, most of a new agent's or cycle's workflow-thread time (bench/throughput-tasks.ts). Sharing them is safe
 * because they keep no state of their own: a workflow's state lives in the objects its workflow function creates
 * (test/unit/config/shared-modules.test.ts keeps module-scope state out), and the SDK deep-freezes what shared modules
 * export, so a stray write throws instead of leaking into another workflow. Their dependencies are shared with them.
 */
export const SHARED_WORKFLOW_MODULES: readonly string[] = [
  'agent/agent',
  'agent/agent-cycle',
  'agent/subagent',
  'agent/scheduled-wake',
  'staged/staged-task',
  'staged/stage',
  'research/research',
  'research/research-worker',
  'research/investigation',
].map((name) => require.resolve(`../workflows/${name}`));

/** Worker options that bundle this package's workflows with their shared modules. */
export function workflowWorkerOptions(): { workflowsPath: string; bundlerOptions: { preloadModules: string[] } } {
  return { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: [...SHARED_WORKFLOW_MODULES] } };
}

/** `bundleWorkflowCode` options for the same bundle (a prebuilt bundle for tests and benchmarks). */
export function workflowBundleOptions(): { workflowsPath: string; preloadModules: string[] } {
  return { workflowsPath: WORKFLOWS_PATH, preloadModules: [...SHARED_WORKFLOW_MODULES] };
}
