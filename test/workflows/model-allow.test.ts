import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker, WorkflowBundleOption } from '@temporalio/worker';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { agentIdKey } from '../../src/common/search-attributes';
import { loadConfig } from '../../src/config';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { createWorker } from '../../src/workers/create-worker';
import { type HttpStub, startHttpStub } from '../activities/http-stub';
import { type CountingServer, startCountingServer } from '../helpers/counting-server';
import { uniqueId, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_WORKER_THREAD, useWorkflowEnvironment } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

let foreign: CountingServer;
let stub: HttpStub;
let home: string;

beforeAll(async () => {
  foreign = await startCountingServer();
  stub = await startHttpStub();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'model-allow-worker-'));
});
afterAll(async () => {
  await foreign.close();
  await stub.close();
});

/**
 * The CLI's worker as `scratchpad worker` builds it, from an environment that allows no fetch and names one OpenAI
 * server in SCRATCHPAD_MODELS; its default model is a script.
 */
async function configuredWorker(): Promise<{ worker: Worker; taskQueue: string; allowed: string }> {
  const taskQueue = uniqueTaskQueue('model-allow');
  const allowed = `openai:*@${stub.url}/v1`;
  const config = loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_TASK_QUEUE: taskQueue, SCRATCHPAD_MODELS: allowed });
  expect(config.SCRATCHPAD_FETCH_ALLOW).toEqual([]);
  const worker = await createWorker({
    config: { ...config, TEMPORAL_NAMESPACE: env.namespace ?? 'default' },
    modelSpec: 'scripted:test',
    providers: { 'scripted:test': new ScriptedProvider([], 'test') },
    connection: env.nativeConnection,
    observations: new MemoryObservationStore(),
    workerOptions: {
      ...TEST_WORKER_THREAD,
      workflowBundle: bundle,
      workflowsPath: undefined,
      bundlerOptions: undefined,
    },
  });
  return { worker, taskQueue, allowed };
}

function runCycle(taskQueue: string, model: string): Promise<CycleResult> {
  const agentId = uniqueId('model-allow');
  const input = { agentId, before: enqueueTasks(defaultScratchpad('Test'), ['Say done']), model } as CycleInput;
  return env.client.workflow.execute('agentCycle', {
    taskQueue,
    workflowId: `agent/${agentId}/cycle/1`,
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
}

describe('a worker resolves only the model specs its configuration names', () => {
  it('fails a cycle that names a foreign server with the not-allowed line; the server gets no request', async () => {
    const { worker, taskQueue, allowed } = await configuredWorker();
    const spec = `openai:x@${foreign.url}/anything`;
    const result = await worker.runUntil(runCycle(taskQueue, spec));

    expect(result.outcome).toBe('failed');
    expect(result.error).toBe(
      `ModelError.NotAllowed: model "${spec}" is not allowed on this worker: allowed are scripted:test, ${allowed}; ` +
        'add it to SCRATCHPAD_MODELS',
    );
    expect(result.after.notes).toContain(`failed: ${result.error}`);
    expect(foreign.requests).toBe(0);
  });

  it('refuses a script file a client names without reading it', async () => {
    const file = path.join(home, 'worker-local.env');
    fs.writeFileSync(file, 'DATABASE_PASSWORD=first-line-of-a-local-file\n');
    const { worker, taskQueue } = await configuredWorker();
    const result = await worker.runUntil(runCycle(taskQueue, `scripted:${file}`));

    expect(result.outcome).toBe('failed');
    expect(result.error).toContain(`ModelError.NotAllowed: model "scripted:${file}" is not allowed on this worker`);
    expect(JSON.stringify(result)).not.toContain('first-line-of-a-local-file');
    expect(JSON.stringify(result)).not.toContain('DATABASE_PASSWORD');
  });

  it('runs a cycle on any model at the base URL that SCRATCHPAD_MODELS allows', async () => {
    stub.reply({
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'served-model',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'done', arguments: '{"summary":"ok"}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      },
    });
    const { worker, taskQueue } = await configuredWorker();
    // A wildcard without `#...` allows any protocol; `#tools` spares the cycle the probe a spec without one sends.
    const result = await worker.runUntil(runCycle(taskQueue, `openai:served-model@${stub.url}/v1#tools`));

    expect(result.outcome).toBe('completed');
    expect(stub.received).toHaveLength(1);
    expect((stub.received[0]?.body as { model: string }).model).toBe('served-model');
  });
});
