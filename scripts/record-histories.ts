/**
 * Records the replay histories under test/replay/histories from scripted cycles on a fresh dev
 * server. Rerun after an intentional, patched() change to workflow code; old files stay as they are.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import { type ScriptEntry, ScriptedProvider } from '../src/activities/model/scripted';
import type { CycleInput } from '../src/core/cycle';
import { defaultScratchpad, enqueueTasks } from '../src/core/scratchpad';
import { startDevServer } from '../src/temporal/dev-server';
import { agentIdKey } from '../src/temporal/search-attributes';
import { WORKFLOWS_PATH } from '../src/worker';

const OUT = path.resolve(__dirname, '..', '..', 'test', 'replay', 'histories');

interface Recording {
  name: string;
  script: ScriptEntry[];
  input: Omit<CycleInput, 'agentId' | 'before'>;
}

const before = enqueueTasks(defaultScratchpad('Replay fixture'), ['Greet the world', 'Write hello.txt']);

const RECORDINGS: Recording[] = [
  {
    name: 'agent-cycle-completed',
    script: [
      {
        tool: 'update_scratchpad',
        args: { trajectory_now: 'Greeting', understanding_known: 'APPEND: - (user) wants hello' },
      },
      { tool: 'echo', args: { message: 'Hello!' } },
      { tool: 'fs_write', args: { path: 'hello.txt', content: 'Hello!\n' } },
      { tool: 'done', args: { summary: 'Greeted and wrote hello.txt' } },
    ],
    input: {},
  },
  {
    name: 'agent-cycle-parse-error-max-iterations',
    script: [
      { text: 'Let me think about this first.' },
      { tool: 'update_scratchpad', args: { bogus: 'rejected' } },
      { tool: 'echo', args: { message: 'still working' } },
    ],
    input: { maxIterations: 3 },
  },
  {
    name: 'agent-cycle-failed',
    script: [
      { tool: 'echo', args: { message: 'before the failure' } },
      { error: { type: 'ModelError.Auth', message: '401 invalid api key', nonRetryable: true } },
    ],
    input: {},
  },
];

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const server = await startDevServer({ ui: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'record-sandbox-'));
  try {
    for (const recording of RECORDINGS) {
      const model = new ScriptedProvider(recording.script, recording.name);
      const taskQueue = `record-${recording.name}`;
      const worker = await Worker.create({
        connection,
        taskQueue,
        workflowsPath: WORKFLOWS_PATH,
        activities: createActivities({
          resolveModel: createModelResolver({
            defaultSpec: 'scripted:fixture',
            providers: { 'scripted:fixture': model },
          }),
          tools: { sandboxRoot, shellAllow: ['echo'], shellTimeoutMs: 5000, fetchAllowHosts: [], fetchMaxBytes: 1024 },
        }),
      });
      const agentId = `replay-${recording.name}`;
      const workflowId = `agent/${agentId}/cycle/1`;
      const handle = await worker.runUntil(async () => {
        const started = await client.workflow.start('agentCycle', {
          taskQueue,
          workflowId,
          args: [{ agentId, before, ...recording.input } satisfies CycleInput],
          typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
        });
        await started.result();
        return started;
      });
      const file = path.join(OUT, `${recording.name}.json`);
      fs.writeFileSync(file, historyToJSON(await handle.fetchHistory()));
      process.stderr.write(`recorded ${file}\n`);
    }
  } finally {
    await connection.close();
    await server.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
