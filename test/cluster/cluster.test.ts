import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { type Browser, chromium } from 'playwright-core';
import { updateAgent } from '../../src/clients/agents';
import { createAgentSchedule } from '../../src/clients/schedules';
import { cyclesQuery, runCycleUpdate, sendUpdate } from '../../src/common/messages/agent';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import type { CycleRecord } from '../../src/core/agent/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import { DEFAULT_TASK_QUEUE } from '../../src/config';
import { clusterClient, clusterConfig, clusterState, clusterWorkers } from './cluster-env';
import { LoopbackModel, MIDDLE_MARKER } from './loopback-model';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];
const stamp = Date.now().toString(36);
const model = new LoopbackModel();
let client: Client;

beforeAll(async () => {
  await model.start();
  client = await clusterClient();
});

afterAll(async () => {
  await client?.connection.close();
  await model.stop();
});

function target(agentId: string, spec: string) {
  return { agentId, taskQueue: DEFAULT_TASK_QUEUE, settings: { model: spec } };
}

function runCycle(agentId: string, spec: string): Promise<CycleRecord> {
  return updateAgent(client, target(agentId, spec), runCycleUpdate, [{ tasks: [`Greet for ${agentId}`], model: spec }]);
}

/** Activity type and the identity (`<pid>@<host>`) of the worker that ran each attempt, from the history. */
async function activityWorkers(workflowId: string): Promise<{ type: string; pid: number }[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const types = new Map<string, string>();
  const ran: { type: string; pid: number }[] = [];
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      ran.push({ type: types.get(String(started.scheduledEventId)) ?? '?', pid: parseInt(started.identity ?? '', 10) });
    }
  }
  return ran;
}

function cli(args: string[]) {
  return run(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...clusterState().clientEnv },
    timeout: 60_000,
  });
}

const spreadAgents = [1, 2, 3, 4, 5, 6].map((n) => `spread-${stamp}-${n}`);

describe('the production shape: Temporal on PostgreSQL, Redis, two worker processes, TLS', () => {
  it('agents chat and run task cycles, spread over both workers', async () => {
    const records = await Promise.all(spreadAgents.map((agentId) => runCycle(agentId, model.spec('echo-300'))));
    expect(records.map((record) => record.outcome)).toEqual(spreadAgents.map(() => 'completed'));
    const chat = await updateAgent(client, target(`chat-${stamp}`, model.spec('echo-0')), sendUpdate, [
      { message: 'Hello, cluster' },
    ]);
    expect(chat.reply).toBe('Hello from the cluster.');

    const ran = (await Promise.all(records.map((record) => activityWorkers(record.cycleId)))).flat();
    expect(ran.map((attempt) => attempt.type)).toEqual(expect.arrayContaining(['callModel', 'runTool']));
    const pids = new Set(ran.map((attempt) => attempt.pid));
    expect([...pids].sort()).toEqual(
      clusterWorkers()
        .map((worker) => worker.pid)
        .sort(),
    );
  });

  it('a schedule fires and wakes its agent, which runs the scheduled task in its own memory', async () => {
    const agentId = `scheduled-${stamp}`;
    const spec = model.spec('echo-0');
    await updateAgent(client, target(agentId, spec), sendUpdate, [{ message: 'Remember me' }]);
    const schedule = await createAgentSchedule(client, {
      agentId,
      taskQueue: DEFAULT_TASK_QUEUE,
      name: 'default',
      timing: { every: 2000 },
      tasks: ['Scheduled greeting'],
    });
    try {
      const handle = client.workflow.getHandle(agentWorkflowId(agentId));
      const deadline = Date.now() + 60_000;
      let scheduled: CycleRecord | undefined;
      while (!scheduled && Date.now() < deadline) {
        scheduled = (await handle.query(cyclesQuery)).find((cycle) => cycle.trigger === 'schedule');
        if (!scheduled) await sleep(500);
      }
      expect(scheduled).toMatchObject({ outcome: 'completed' });
      const result: CycleResult = await client.workflow.getHandle(scheduled!.cycleId).result();
      expect(result.after.workspace).toContain('Talked with the user on the cluster');
    } finally {
      await client.schedule.getHandle(schedule.scheduleId).delete();
    }
  });

  it('SIGKILL of one worker: the other finishes every cycle and reads through Redis what the dead one stored', async () => {
    const bigAgent = `big-${stamp}`;
    model.hold();
    const big = runCycle(bigAgent, model.spec('big'));
    const echoAgents = [1, 2, 3, 4].map((n) => `kill-${stamp}-${n}`);
    const echoes = echoAgents.map((agentId) => runCycle(agentId, model.spec('echo-2000')));
    const bigCycle = cycleWorkflowId(bigAgent, 1);
    while (model.waiting.length === 0) await sleep(100);
    // The 6 KB echo went to the store on the worker that ran it; that worker dies.
    const stored = (await activityWorkers(bigCycle)).find((attempt) => attempt.type === 'runTool');
    const victim = clusterWorkers().find((worker) => worker.pid === stored?.pid);
    const survivor = clusterWorkers().find((worker) => worker.pid !== stored?.pid);
    if (!victim || !survivor) throw new Error(`runTool ran on unknown worker ${stored?.pid}`);
    process.kill(victim.pid, 'SIGKILL');
    const killedAt = Date.now();
    model.release();

    const records = await Promise.all([big, ...echoes]);
    const recoveryMs = Date.now() - killedAt;
    console.log(`SIGKILL of worker ${victim.pid}: all ${records.length} cycles completed ${recoveryMs} ms later`);
    expect(records.map((record) => record.outcome)).toEqual(records.map(() => 'completed'));
    // Without a heartbeat timeout an activity lost with its worker waits out its 3-minute start-to-close timeout.
    expect(recoveryMs).toBeLessThan(240_000);

    const reads = (await activityWorkers(bigCycle)).filter((attempt) => attempt.type === 'runTool').slice(1);
    expect(reads.map((attempt) => attempt.pid)).toEqual([survivor.pid]);
    const result: CycleResult = await client.workflow.getHandle(bigCycle).result();
    expect(result.after.notes).toContain(MIDDLE_MARKER);
    const afterKill = (await Promise.all(echoAgents.map((agentId) => activityWorkers(cycleWorkflowId(agentId, 1)))))
      .flat()
      .filter((attempt) => attempt.pid === survivor.pid);
    expect(afterKill.length).toBeGreaterThan(0);
  });

  it('show and snapshots work with no worker running', async () => {
    const survivor = clusterWorkers().filter((worker) => isAlive(worker.pid));
    for (const worker of survivor) process.kill(worker.pid, 'SIGTERM');
    while (survivor.some((worker) => isAlive(worker.pid))) await sleep(100);

    const agentId = spreadAgents[0]!;
    const shown = await cli(['show', agentId, '--format', 'json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ current_task: null });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-snapshots-'));
    await cli(['snapshots', agentId, '--out', out]);
    const files = fs.readdirSync(out).sort();
    expect(files).toContain('active.yaml');
    expect(files.filter((file) => /_before\.yaml$/.test(file))).toHaveLength(1);
    expect(files.filter((file) => /_after\.yaml$/.test(file))).toHaveLength(1);
  });

  it('the Web UI server lists the cycles of one agent, filtered by AgentId', async () => {
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const [shown, hidden] = spreadAgents;
      const query = encodeURIComponent(`AgentId="${shown}"`);
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`${clusterState().uiUrl}/namespaces/default/workflows?query=${query}`);
      await page.getByText(cycleWorkflowId(shown!, 1)).first().waitFor({ timeout: 30_000 });
      await expect(page.getByText(agentWorkflowId(shown!), { exact: true }).first().isVisible()).resolves.toBe(true);
      await expect(page.getByText(cycleWorkflowId(hidden!, 1)).count()).resolves.toBe(0);
    } finally {
      await browser.close();
    }
  });

  it('refuses a connection without the cluster CA: the frontend really serves TLS', async () => {
    const config = clusterConfig({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: '' });
    expect(config.temporal.tls).toBeTruthy();
    const { connectClient } = await import('../../src/clients/connection');
    await expect(connectClient(config)).rejects.toThrow();
    const plain = clusterConfig({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '' });
    await expect(connectClient(plain)).rejects.toThrow();
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
