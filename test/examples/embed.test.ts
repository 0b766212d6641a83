import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { type CycleResult, cycleWorkflowId, defaultScratchpad, enqueueTasks } from 'durable-scratchpad';
import { ScriptedProvider } from 'durable-scratchpad/testing';
import { agentIdKey } from '../../src/common/search-attributes';
import { createYourWorker } from '../../examples/embed-in-your-worker';
import { testEnvironment, uniqueTaskQueue } from '../helpers/temporal';

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await testEnvironment();
});

afterAll(async () => {
  await env?.teardown();
});

describe('embedding the plugin in a worker of your own', () => {
  it("runs one of the user's workflows and one agent cycle on the same worker", async () => {
    const taskQueue = uniqueTaskQueue('embed');
    const model = new ScriptedProvider(
      [
        { tool: 'echo', args: { message: 'from an embedded agent' } },
        { tool: 'done', args: { summary: 'Echoed' } },
      ],
      'embed',
    );
    const worker = await createYourWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      scratchpad: {
        model: 'scripted:embed',
        providers: { 'scripted:embed': model },
        tools: {
          sandboxRoot: fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-embed-')),
          shellAllow: ['echo'],
          shellTimeoutMs: 5000,
          fetchAllowHosts: [],
          fetchMaxBytes: 1 << 20,
        },
      },
    });
    const agentId = `embed-${process.pid}-${Date.now()}`;
    const before = enqueueTasks(defaultScratchpad('Embedded'), ['Say hello']);
    const [greeting, cycle] = await worker.runUntil(
      Promise.all([
        env.client.workflow.execute('greeting', { taskQueue, workflowId: `${agentId}-greeting`, args: ['Ada'] }),
        env.client.workflow.execute('agentCycle', {
          taskQueue,
          workflowId: cycleWorkflowId(agentId, 1),
          args: [{ agentId, before }],
          typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
        }) as Promise<CycleResult>,
      ]),
    );
    expect(greeting).toBe('Hello, Ada!');
    expect(cycle.outcome).toBe('completed');
    expect(cycle.after.notes).toContain(
      '[TOOL] echo({"message":"from an embedded agent"}) → ECHO: from an embedded agent',
    );
    expect(cycle.after.completed_tasks).toEqual([{ task: 'Say hello', summary: 'Echoed' }]);
    expect(model.requests).toHaveLength(2);
  });
});
