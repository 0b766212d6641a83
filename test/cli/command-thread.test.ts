import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { COMMAND_THREAD } from '../../src/cli/in-process-worker';
import { Agents } from '../../src/clients/agents';
import { loadConfig } from '../../src/config';
import { createWorker } from '../../src/workers/create-worker';
import { uniqueId, uniqueTaskQueue } from '../helpers/temporal';
import { useWorkflowEnvironment } from '../helpers/worker';

/* A worker inside a command runs workflow code on the command's thread, still under the SDK's 5 s limit. */

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const homes: string[] = [];
afterAll(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

async function commandWorker(workerOptions: typeof COMMAND_THREAD) {
  const taskQueue = uniqueTaskQueue('command-thread');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'command-thread-'));
  homes.push(home);
  const config = loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_TASK_QUEUE: taskQueue });
  const script = [
    { tool: 'done', args: { summary: 'finished' } },
    { tool: 'update_scratchpad', args: { trajectory_now: 'Finished' } },
  ];
  const worker = await createWorker({
    config: { ...config, TEMPORAL_NAMESPACE: env.namespace ?? 'default' },
    modelSpec: 'scripted:test',
    providers: { 'scripted:test': new ScriptedProvider(script, 'test') },
    connection: env.nativeConnection,
    observations: new MemoryObservationStore(),
    log: () => undefined,
    workerOptions: { ...workerOptions, workflowBundle: bundle, workflowsPath: undefined, bundlerOptions: undefined },
  });
  return { worker, taskQueue };
}

describe("a command's worker", () => {
  it('runs workflows on its own thread with the 5 s limit on workflow code that does not yield', async () => {
    const { worker, taskQueue } = await commandWorker(COMMAND_THREAD);
    expect(worker.options).toMatchObject({ debugMode: true, isolateExecutionTimeoutMs: 5000 });
    const agentId = uniqueId('command-thread');
    const record = await worker.runUntil(
      new Agents(env.client).runCycle({ agentId, taskQueue, purpose: 'Finish' }, { tasks: ['finish'] }),
    );
    expect(record).toMatchObject({ outcome: 'completed', iterations: 1 });
  });

  it('would have no limit with the SDK debug mode alone, which is why the limit is set', async () => {
    const { worker } = await commandWorker({ debugMode: true });
    expect(worker.options.isolateExecutionTimeoutMs).toBeGreaterThan(3_600_000);
    await worker.runUntil(Promise.resolve());
  });
});
