import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleInput } from '../../src/core/cycle/input';
import { DefaultLogger, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';
import { type ActivityDependencies, createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import type { ModelProvider } from '../../src/activities/model/provider';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { ObservationStore } from '../../src/activities/observations/entry';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { workerSinks } from '../../src/workers/create-worker';
import { testEnvironment, uniqueTaskQueue } from './temporal';
import { workflowBundle } from './workflow-bundle';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

// Worker state changes at INFO drown test output; keep warnings and errors.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed: by another helper in this file, or by an earlier file on this jest worker, which loads the
  // SDK once for all its files (test/shared-modules-runtime.js).
}

/**
 * Workers made by the tests run workflows on the test's own thread (the SDK's `debugMode`), in the same sandbox, not on
 * a workflow thread each: a thread per worker (tests make one or more each) loads the SDK and the workflow bundle
 * again, and every activation crosses threads, which cost these files about a fifth of their CPU. What it leaves out is
 * the SDK's deadlock detector (a workflow task over 2 s), which no test relies on. The workers users run keep their
 * thread: `createWorker` unchanged, `scratchpad worker` and the CLI's in-process worker, which the CLI, example, fault
 * and cluster suites run.
 */
export const TEST_WORKER_THREAD = { debugMode: true } as const;

/*
 * Nor does this thread run the SDK's promise hook for the stack-trace query (test/shared-modules-runtime.js says why).
 * The SDK's handlers are removed after the file, as a worker thread's are when it ends.
 */
afterAll(() => globalHandlers.uninstall());

/** The workflow code, bundled once per run by global setup; call once per test file. */
export function bundleWorkflows(): Promise<WorkflowBundleOption> {
  return workflowBundle();
}

/** The sandboxes this test file made: removed after its tests, or every run would leave hundreds in the temp folder. */
const sandboxes: string[] = [];
afterAll(() => {
  for (const directory of sandboxes.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

export function sandboxOptions(): ToolOptions {
  const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-sandbox-'));
  sandboxes.push(sandboxRoot);
  return {
    sandboxRoot,
    shellAllow: ['echo', 'date', 'ls', 'cat'],
    shellTimeoutMs: 5000,
    fetchAllowHosts: ['127.0.0.1', 'localhost'],
    fetchMaxBytes: 10 * 1024 * 1024,
  };
}

export interface ScriptedWorker {
  worker: Worker;
  taskQueue: string;
  model: ScriptedProvider;
  tools: ToolOptions;
  observations: ObservationStore;
}

/** Observation handling of a scripted worker: a memory store and seed 002's threshold unless given. */
export interface ObservationSetup {
  observations?: ObservationStore;
  offloadBytes?: number;
}

/** A worker on a fresh task queue whose default model replays `script`. */
export async function scriptedWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleOption,
  script: ScriptEntry[],
  name = 'cycle',
  setup: ObservationSetup = {},
  extra: Pick<ActivityDependencies, 'client' | 'toolRegistry'> & {
    /** A provider in front of the scripted model, e.g. one that fills in ids only the prompt knows. */
    wrap?: (model: ScriptedProvider) => ModelProvider;
  } = {},
): Promise<ScriptedWorker> {
  const { wrap, ...dependencies } = extra;
  const model = new ScriptedProvider(script, name);
  const observations = setup.observations ?? new MemoryObservationStore();
  const tools = sandboxOptions();
  const queue = uniqueTaskQueue(`test-${name}`);
  const provider = wrap ? wrap(model) : model;
  const resolveModel = createModelResolver({ defaultSpec: 'scripted:test', providers: { 'scripted:test': provider } });
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: queue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({
      resolveModel,
      tools,
      observations,
      offloadBytes: setup.offloadBytes,
      ...dependencies,
    }),
    sinks: workerSinks(),
  });
  return { worker, taskQueue: queue, model, tools, observations };
}

/**
 * Connects to the shared dev server and bundles the workflows before the file's tests, tearing down after them;
 * `ready` receives both once they exist.
 */
export function useWorkflowEnvironment(
  ready: (setup: { env: TestWorkflowEnvironment; bundle: WorkflowBundleOption }) => void,
): void {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await testEnvironment();
    ready({ env, bundle: await bundleWorkflows() });
  });
  afterAll(async () => {
    await env?.teardown();
  });
}

/** A worker on a fresh task queue whose models come from `resolveModel`: for tests of a provider adapter. */
export async function providerWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleOption,
  resolveModel: ActivityDependencies['resolveModel'],
  name: string,
): Promise<{ worker: Worker; taskQueue: string }> {
  const taskQueue = uniqueTaskQueue(name);
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools: sandboxOptions() }),
    sinks: workerSinks(),
  });
  return { worker, taskQueue };
}

/** Starts `input` as cycle 1 of its agent, with the agent id search attribute the Web UI and `list` filter on. */
export function startAgentCycle(env: TestWorkflowEnvironment, taskQueue: string, input: CycleInput) {
  return env.client.workflow.start('agentCycle', {
    taskQueue,
    workflowId: `agent/${input.agentId}/cycle/1`,
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: input.agentId }]),
  });
}
