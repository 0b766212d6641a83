/**
 * Records the replay histories under test/replay/histories from scripted runs on a fresh dev server.
 * Before 1.0 a change to workflow code re-records them all (`node dist/scripts/record-histories.js`) instead of
 * adding a patch (test/unit/repo/no-patches.test.ts). Names given as arguments record only those.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import { updateAgent } from '../src/clients/agents';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import type { ModelProvider } from '../src/activities/model/provider';
import { RoutedScriptedProvider } from '../src/activities/model/routed';
import { type ScriptEntry, ScriptedProvider } from '../src/activities/model/scripted';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../src/cli/demo/fixture-web';
import { DEMO_COMPANIES, DEMO_PLAN, demoRoutes, planRoute } from '../src/cli/demo/research-scripts';
import { researchInvestigationId, researchWorkflowId, researchWorkerId, subagentCycleId } from '../src/common/ids';
import type { AgentSettings } from '../src/core/agent/agent';
import type { AgentCycleInput as CycleInput } from '../src/core/agent/cycle-input';
import { defaultScratchpad, enqueueTasks } from '../src/core/scratchpad/scratchpad';
import { MAX_COMPLETED_TASKS } from '../src/core/scratchpad/state-caps';
import { startDevServer } from '../src/dev-server/dev-server';
import { agentIdKey } from '../src/common/search-attributes';
import { startStaged } from '../src/clients/staged-runs';
import { startRedisServer } from '../test/helpers/redis-server';
import { workerSinks, workflowWorkerOptions } from '../src/workers/create-worker';
import {
  cancelCycleUpdate,
  directiveSignal,
  enqueueUpdate,
  injectUpdate,
  runCycleUpdate,
  sendUpdate,
  startTurnUpdate,
  statusQuery,
} from '../src/common/messages/agent';

const OUT = path.resolve(__dirname, '..', '..', 'test', 'replay', 'histories');

interface Session {
  client: Client;
  connection: NativeConnection;
  sandboxRoot: string;
}

interface Recording {
  name: string;
  script: ScriptEntry[];
  /** A model other than the script (concurrent research workers need a routed one). */
  provider?: ModelProvider;
  /** The fixture web a research recording fetches from. */
  web?: () => Promise<FixtureWeb>;
  /** Drives the workflows; returns the workflow ids (and run ids) whose histories to save, under file names. */
  run(session: Session, taskQueue: string): Promise<Record<string, { workflowId: string; runId?: string }>>;
}

const before = enqueueTasks(defaultScratchpad('Replay fixture'), ['Greet the world', 'Write hello.txt']);

/** `children` names further histories to save, by the workflow id each has under the cycle's. */
function cycleRecording(
  name: string,
  script: ScriptEntry[],
  input: Partial<CycleInput> = {},
  children: Record<string, (cycleId: string) => string> = {},
): Recording {
  return {
    name,
    script,
    async run({ client }, taskQueue) {
      const agentId = `replay-${name}`;
      const workflowId = `agent/${agentId}/cycle/1`;
      const handle = await client.workflow.start('agentCycle', {
        taskQueue,
        workflowId,
        args: [{ agentId, before, ...input } as CycleInput],
        typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
      });
      await handle.result();
      const saved = Object.entries(children).map(([child, id]) => [child, { workflowId: id(workflowId) }]);
      return { [name]: { workflowId }, ...Object.fromEntries(saved) };
    },
  };
}

function agentTarget(name: string, taskQueue: string, settings?: Partial<AgentSettings>) {
  return { agentId: `replay-${name}`, taskQueue, settings };
}

const RECORDINGS: Recording[] = [
  cycleRecording('agent-cycle-completed', [
    {
      tool: 'update_scratchpad',
      args: { trajectory_now: 'Greeting', understanding_known: 'APPEND: - (user) wants hello' },
    },
    { tool: 'echo', args: { message: 'Hello!' } },
    { tool: 'fs_write', args: { path: 'hello.txt', content: 'Hello!\n' } },
    { tool: 'done', args: { summary: 'Greeted and wrote hello.txt' } },
  ]),
  cycleRecording(
    'agent-cycle-parse-error-max-iterations',
    [
      { text: 'Let me think about this first.' },
      { tool: 'update_scratchpad', args: { bogus: 'rejected' } },
      { tool: 'echo', args: { message: 'still working' } },
    ],
    { maxIterations: 3 },
  ),
  cycleRecording('agent-cycle-failed', [
    { tool: 'echo', args: { message: 'before the failure' } },
    { error: { type: 'ModelError.Auth', message: '401 invalid api key', nonRetryable: true } },
  ]),
  // A cycle that fails at its first call: its outcome line and details in its memo.
  cycleRecording('agent-cycle-failed-outcome-memo', [
    { error: { type: 'ModelError.Auth', message: '401 invalid api key', nonRetryable: true } },
  ]),
  // Responses with several calls, behind the several-calls patch: a task cycle and a single-phase chat turn.
  cycleRecording('agent-cycle-several-calls', [
    {
      calls: [
        { tool: 'update_scratchpad', args: { trajectory_now: 'Greeting' } },
        { tool: 'echo', args: { message: 'Hello!' } },
        { tool: 'fs_write', args: { path: 'hello.txt', content: 'Hello!\n' } },
      ],
    },
    { tool: 'fs_write', args: { path: 'hello.txt', content: 'Hello!\n' } },
    { tool: 'done', args: { summary: 'Greeted and wrote hello.txt' } },
  ]),
  cycleRecording(
    'agent-cycle-chat-several-calls',
    [
      {
        text: 'Checking twice.',
        calls: [
          { tool: 'echo', args: { message: 'one' } },
          { tool: 'update_scratchpad', args: { trajectory_now: 'Checking' } },
          { tool: 'echo', args: { message: 'two' } },
        ],
      },
      { text: 'Checked once; the second check was refused.' },
    ],
    { kind: 'chat', message: 'check twice', twoPhase: false },
  ),
  // Past MAX_COMPLETED_TASKS, `done` archives the oldest completed tasks (patch `archive-completed-tasks`).
  cycleRecording('agent-cycle-archive-completed-tasks', [{ tool: 'done', args: { summary: 'one too many' } }], {
    before: {
      ...before,
      completed_tasks: Array.from({ length: MAX_COMPLETED_TASKS }, (_, n) => ({ task: `task ${n}`, summary: 'ok' })),
    },
  }),
  // Seed 001's spawn_subagent: a child subagentCycle whose summary is the parent's observation.
  cycleRecording(
    'agent-cycle-subagent',
    [
      { tool: 'spawn_subagent', args: { task: 'Compose a greeting', context: 'The world likes short greetings' } },
      { tool: 'update_scratchpad', args: { understanding_known: 'Short greetings' } },
      { tool: 'done', args: { summary: 'Hello, world!' } },
      { tool: 'echo', args: { message: 'Hello, world!' } },
      { tool: 'done', args: { summary: 'Greeted with the sub-agent greeting' } },
    ],
    {},
    { 'agent-cycle-subagent-child': (cycleId) => subagentCycleId(cycleId, 1) },
  ),
  {
    name: 'agent-chat-directive-tasks',
    script: [
      { tool: 'echo', args: { message: 'checking' } },
      { text: 'Hello Ada, noted.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada', trajectory_now: 'Introductions' } },
      { tool: 'echo', args: { message: 'task work' }, delayMs: 500 },
      { tool: 'done', args: { summary: 'did the task' } },
    ],
    async run({ client }, taskQueue) {
      const target = agentTarget('agent-chat-directive-tasks', taskQueue);
      const agentId = target.agentId;
      await updateAgent(client, target, sendUpdate, [{ message: 'Hi, I am Ada' }]);
      await updateAgent(client, target, injectUpdate, [{ section: 'self_flags', content: 'PROTECT: Ada prefers tea' }]);
      await updateAgent(client, target, enqueueUpdate, [{ tasks: ['Summarise the logs'], goals: ['Help Ada'] }]);
      const cycle = updateAgent(client, target, runCycleUpdate, [{}]);
      const handle = client.workflow.getHandle(`agent/${agentId}`);
      while ((await handle.query(statusQuery)).running === null)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await handle.signal(directiveSignal, 'Only look at errors');
      await cycle;
      return {
        'agent-chat-directive-tasks': { workflowId: `agent/${agentId}` },
        'agent-cycle-chat-turn': { workflowId: `agent/${agentId}/cycle/1` },
        'agent-cycle-with-directive': { workflowId: `agent/${agentId}/cycle/2` },
      };
    },
  },
  {
    name: 'agent-continue-as-new',
    script: [1, 2, 3].map((n) => ({ tool: 'done', args: { summary: `done ${n}` } })),
    async run({ client }, taskQueue) {
      const target = agentTarget('agent-continue-as-new', taskQueue, { continueAsNewEvery: 2 });
      await updateAgent(client, target, enqueueUpdate, [{ tasks: ['one', 'two', 'three'] }]);
      for (let n = 0; n < 3; n++) await updateAgent(client, target, runCycleUpdate, [{}]);
      const workflowId = `agent/${target.agentId}`;
      const runs: string[] = [];
      for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
        runs.push(execution.runId);
      }
      const [latest, first] = runs;
      return {
        'agent-continue-as-new-run1': { workflowId, runId: first },
        'agent-continue-as-new-run2': { workflowId, runId: latest },
      };
    },
  },
  {
    // Seed 004: plan, a no-op stage corrected, a failing verification, a repair, a passing verification.
    name: 'staged-task-repaired',
    script: [
      { tool: 'plan', args: { stages: ['write a.txt'], scratchpad: { next: 'a.txt' } } },
      { tool: 'done', args: { summary: 'claims done, wrote nothing' } },
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a\n', scratchpad: { done: ['a.txt'] } } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
      { tool: 'fs_write', args: { path: 'b.txt', content: 'b\n' } },
      { tool: 'done', args: { summary: 'wrote b.txt' } },
    ],
    async run({ client }, taskQueue) {
      const agentId = 'replay-staged-task';
      const input = { agentId, task: 'Write a.txt and b.txt', staged: true, verify: 'test -f a.txt && test -f b.txt' };
      const handle = await startStaged(client, taskQueue, input, 1);
      await handle.result();
      return {
        'staged-task-repaired': { workflowId: handle.workflowId },
        'staged-task-stage-cycle': { workflowId: `${handle.workflowId}/stage-1-retry-1` },
      };
    },
  },
  {
    // A staged run with one stage, verified: its outcome line and details in its memo.
    name: 'staged-task-outcome-memo',
    script: [
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a\n' } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
    ],
    async run({ client }, taskQueue) {
      const input = {
        agentId: 'replay-staged-task-outcome-memo',
        task: 'Write a.txt',
        staged: false,
        verify: 'test -f a.txt',
      };
      const handle = await startStaged(client, taskQueue, input, 1);
      await handle.result();
      return { 'staged-task-outcome-memo': { workflowId: handle.workflowId } };
    },
  },
  {
    // A streamed chat turn (design.md, Streaming): its text in batches of `streamChunk` signals, a tool call between
    // two model calls, then reflect.
    name: 'agent-streamed-turn',
    script: [
      { text: 'Let me check. ', tool: 'echo', args: { message: 'ping' } },
      { text: 'The echo answered ping, so the tool works as it should, every time it is asked.', delayMs: 1500 },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Checked the echo' } },
    ],
    async run({ client }, taskQueue) {
      const target = agentTarget('agent-streamed-turn', taskQueue, { tools: ['echo'] });
      const workflowId = `agent/${target.agentId}`;
      await updateAgent(client, target, startTurnUpdate, [{ message: 'Does the echo work?' }]);
      await waitUntilIdle(client.workflow.getHandle(workflowId));
      return {
        'agent-streamed-turn': { workflowId },
        'agent-cycle-streamed-turn': { workflowId: `${workflowId}/cycle/1` },
      };
    },
  },
  {
    // A chat turn cancelled mid-respond: recorded `cancelled`, the memory kept, then one more turn.
    name: 'agent-cancel-cycle',
    script: [
      { text: 'Hello.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Greeted' } },
      { text: 'never sent', delayMs: 120_000 },
      { text: 'Back again.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Greeted twice' } },
    ],
    async run({ client }, taskQueue) {
      const target = agentTarget('agent-cancel', taskQueue);
      const workflowId = `agent/${target.agentId}`;
      await updateAgent(client, target, sendUpdate, [{ message: 'Hi' }]);
      const cancelled = updateAgent(client, target, sendUpdate, [{ message: 'Think long' }]);
      const handle = client.workflow.getHandle(workflowId);
      while ((await handle.query(statusQuery)).running === null) await sleepMs(50);
      // Its model call under way, so the cancel reaches a running activity.
      await sleepMs(1000);
      await handle.executeUpdate(cancelCycleUpdate, { args: [{ cycleId: `${workflowId}/cycle/2` }] });
      await cancelled;
      await updateAgent(client, target, sendUpdate, [{ message: 'Hi again' }]);
      await waitUntilIdle(handle);
      return {
        'agent-cancel-cycle': { workflowId },
        'agent-cycle-cancelled': { workflowId: `${workflowId}/cycle/2` },
      };
    },
  },
];

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Until the agent runs no cycle: its last turn's reflect has ended. */
async function waitUntilIdle(handle: ReturnType<Client['workflow']['getHandle']>): Promise<void> {
  while ((await handle.query(statusQuery)).running !== null) await sleepMs(50);
}

// The fixture web's port is part of the recorded URLs, so the routes are built once it listens.
let researchWeb: FixtureWeb | undefined;
async function fixtureWeb(): Promise<FixtureWeb> {
  researchWeb ??= await serveFixtureWeb(fixturePages(DEMO_COMPANIES));
  return researchWeb;
}

async function researchRecording(): Promise<Recording> {
  const web = await fixtureWeb();
  return {
    name: 'research-run',
    script: [],
    provider: new RoutedScriptedProvider(demoRoutes(web.base), 'research'),
    web: fixtureWeb,
    async run({ client }, taskQueue) {
      const runId = 'replay';
      const workflowId = researchWorkflowId(runId);
      const handle = await client.workflow.start('research', {
        taskQueue,
        workflowId,
        args: [
          { runId, question: 'Revenue and employees', entities: ['Acme', 'Globex'], fields: ['revenue', 'employees'] },
        ],
      });
      await handle.result();
      return {
        'research-run': { workflowId },
        'research-worker': { workflowId: researchWorkerId(runId, 3) },
        'research-worker-cycle': { workflowId: researchInvestigationId(researchWorkerId(runId, 6)) },
      };
    },
  };
}

/** The research run again with a Redis mirror (a redis-server of its own): the mirror lane beside the loop. */
async function mirroredResearchRecording(): Promise<Recording> {
  const web = await fixtureWeb();
  return {
    name: 'research-run-mirrored',
    script: [],
    provider: new RoutedScriptedProvider(demoRoutes(web.base), 'research'),
    web: fixtureWeb,
    async run({ client }, taskQueue) {
      const redis = await startRedisServer();
      try {
        const runId = 'replay-mirrored';
        const workflowId = researchWorkflowId(runId);
        const question = 'Revenue and employees';
        const args = {
          runId,
          question,
          entities: ['Acme', 'Globex'],
          fields: ['revenue', 'employees'],
          mirror: redis.url,
        };
        const handle = await client.workflow.start('research', { taskQueue, workflowId, args: [args] });
        await handle.result();
        return { 'research-run-mirrored': { workflowId } };
      } finally {
        await redis.stop();
      }
    },
  };
}

/** Seed 003 with no lists: the supervisor plans them, its first reply refused and corrected once. */
async function plannedResearchRecording(): Promise<Recording> {
  const web = await fixtureWeb();
  const question = 'How large are Acme and Globex?';
  const plan: ScriptEntry[] = [{ text: 'Acme and Globex, by revenue and employees.' }, ...DEMO_PLAN];
  return {
    name: 'research-run-planned',
    script: [],
    provider: new RoutedScriptedProvider({ ...demoRoutes(web.base), [planRoute(question)]: plan }, 'research'),
    web: fixtureWeb,
    async run({ client }, taskQueue) {
      const workflowId = researchWorkflowId('replay-planned');
      const handle = await client.workflow.start('research', {
        taskQueue,
        workflowId,
        args: [{ runId: 'replay-planned', question, model: 'scripted:fixture' }],
      });
      await handle.result();
      return { 'research-run-planned': { workflowId } };
    },
  };
}

/** Names on the command line (or in RECORD_ONLY) record only those, so existing histories are not overwritten. */
function selected(recordings: Recording[]): Recording[] {
  const only = [...process.argv.slice(2), ...(process.env.RECORD_ONLY?.split(',') ?? [])].map((name) => name.trim());
  return only.length > 0 ? recordings.filter((recording) => only.includes(recording.name)) : recordings;
}

async function record(session: Session, recording: Recording): Promise<void> {
  const model = recording.provider ?? new ScriptedProvider(recording.script, recording.name);
  const web = await recording.web?.();
  const taskQueue = `record-${recording.name}`;
  const worker = await Worker.create({
    connection: session.connection,
    taskQueue,
    ...workflowWorkerOptions(),
    sinks: workerSinks(),
    activities: createActivities({
      resolveModel: createModelResolver({ defaultSpec: 'scripted:fixture', providers: { 'scripted:fixture': model } }),
      tools: {
        sandboxRoot: session.sandboxRoot,
        shellAllow: ['echo'],
        shellTimeoutMs: 5000,
        ...(web ? web.allowance : { fetchAllowHosts: [] }),
        fetchMaxBytes: web ? 1024 * 1024 : 1024,
        ...(web && { searchUrl: web.searchUrl }),
      },
      client: session.client,
    }),
  });
  const targets = await worker.runUntil(recording.run(session, taskQueue));
  for (const [name, { workflowId, runId }] of Object.entries(targets)) {
    const history = await session.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const file = path.join(OUT, `${name}.json`);
    fs.writeFileSync(file, historyToJSON(history));
    process.stderr.write(`recorded ${file} (${history.events?.length ?? 0} events)\n`);
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const server = await startDevServer({ ui: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'record-sandbox-'));
  try {
    const recordings = [
      ...RECORDINGS,
      await researchRecording(),
      await plannedResearchRecording(),
      await mirroredResearchRecording(),
    ];
    for (const recording of selected(recordings)) await record({ client, connection, sandboxRoot }, recording);
  } finally {
    await researchWeb?.close();
    await connection.close();
    await server.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
