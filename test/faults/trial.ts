import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { signalAgent } from '../../src/clients/agents';
import {
  cyclesQuery,
  directiveSignal,
  directivesQuery,
  scratchpadQuery,
  statusQuery,
  wakeSignal,
} from '../../src/common/messages/agent';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import type { CycleResult } from '../../src/core/cycle/input';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import type { SlowServer } from './processes';

/** How long each scripted model call and the slow tool call take: long enough to be killed in, short enough for 60 trials. */
export const MODEL_DELAY_MS = 500;
export const TOOL_DELAY_MS = 500;
export const TRIALS = Number(process.env.FAULT_TRIALS ?? 20);
const UPDATE_MARK = 'fault-trial-update';
const EventType = temporal.api.enums.v1.EventType;

export type KillPoint =
  | 'model call'
  | 'tool call'
  | 'between iterations'
  | 'store read'
  // approval-kill.test.ts: while a call waits for a decision, and just as the decision is sent.
  | 'approval wait'
  | 'approval decide';

/**
 * The script every worker answers from, by iteration, so a replacement worker answers as the killed one would:
 * web_fetch the slow server, echo a field of that observation (read back from the observation store), one update,
 * done.
 */
export function faultScript(fetchUrl: string): ScriptEntry[] {
  const delayMs = MODEL_DELAY_MS;
  return [
    { match: ['Iteration 1 of'], tool: 'web_fetch', args: { url: fetchUrl }, delayMs },
    { match: ['Iteration 2 of'], tool: 'echo', args: { message: 'fetched: HTTP {{step1.status}}' }, delayMs },
    { match: ['Iteration 3 of'], tool: 'update_scratchpad', args: { workspace: `APPEND: ${UPDATE_MARK}` }, delayMs },
    { match: ['Iteration 4 of'], tool: 'done', args: { summary: 'fault trial done' }, delayMs },
  ];
}

export interface TrialSetup {
  client: Client;
  taskQueue: string;
  slow: SlowServer;
  /** SIGKILLs the process under test at once and starts its replacement. */
  killAndRestart(): Promise<void>;
}

export interface TrialRecord {
  trial: number;
  point: KillPoint;
  /** Kill → the replacement process started (for a server: answering). */
  restartMs: number;
  /** Kill → the cycle's next completed activity or its end, per the server's event times. */
  recoveryMs: number;
  outcome: string;
  problems: string[];
}

function randomBetween(low: number, high: number): number {
  return low + Math.random() * (high - low);
}

/** How many activities of the workflow have completed so far. */
async function completedActivities(client: Client, workflowId: string): Promise<number> {
  const events = await eventsOf(client, workflowId);
  return events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED).length;
}

/** Waits for the kill point: the first web_fetch request has been received when this is called. */
async function reach(point: KillPoint, responded: Promise<void>, client: Client, cycleId: string): Promise<void> {
  if (point === 'tool call') return sleep(randomBetween(50, TOOL_DELAY_MS - 150));
  await responded;
  if (point === 'between iterations') return sleep(randomBetween(0, 50));
  // The next model call starts a few ms after the tool's response.
  if (point === 'model call') return sleep(randomBetween(100, MODEL_DELAY_MS - 100));
  // The second model call has answered (callModel, runTool, callModel): runTool's read of step 1 comes next.
  while ((await completedActivities(client, cycleId)) < 3) await sleep(20);
  return sleep(randomBetween(0, 20));
}

/** Waits for a workflow's result across server restarts. */
async function resultOf<T>(client: Client, workflowId: string, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return (await client.workflow.getHandle(workflowId).result()) as T;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}

async function eventsOf(client: Client, workflowId: string) {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** One trial: a fresh agent runs one cycle, the fault strikes at `point`, then the invariants are checked. */
export async function runTrial(setup: TrialSetup, trial: number, point: KillPoint): Promise<TrialRecord> {
  const { client, slow } = setup;
  const target = { agentId: `fault-${trial}-${Date.now()}`, taskQueue: setup.taskQueue };
  const task = `fault task ${trial}`;
  const directive = `fault directive ${trial}`;
  const requested = slow.nextRequest();
  const responded = slow.nextResponse();
  await signalAgent(client, target, wakeSignal, [{ tasks: [task] }]);
  await requested;
  await signalAgent(client, target, directiveSignal, [directive]);
  const cycleId = cycleWorkflowId(target.agentId, 1);
  await reach(point, responded, client, cycleId);
  const killedAt = Date.now();
  await setup.killAndRestart();
  const restartMs = Date.now() - killedAt;

  const result = await resultOf<CycleResult>(client, cycleId);
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  const cycleEvents = await eventsOf(client, cycleId);
  const progress = cycleEvents.find(
    (event) =>
      (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED ||
        event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) &&
      tsToMs(event.eventTime) >= killedAt,
  );
  const recoveryMs = progress ? tsToMs(progress.eventTime) - killedAt : Number.NaN;

  check(result.outcome === 'completed', `outcome ${result.outcome}${result.error ? `: ${result.error}` : ''}`);
  const ended = cycleEvents.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED).length;
  check(ended === 1, `the cycle's history records ${ended} completions`);
  check(count(result.after.notes, '[TOOL] web_fetch') === 1, 'web_fetch noted other than once');
  check(count(result.after.notes, '[TOOL] echo') === 1, 'echo noted other than once');

  const agent = client.workflow.getHandle(agentWorkflowId(target.agentId));
  // The agent adopts the result in its next workflow task.
  let cycles = await agent.query(cyclesQuery);
  for (let attempt = 0; attempt < 100 && cycles.length === 0; attempt++) {
    await sleep(100);
    cycles = await agent.query(cyclesQuery);
  }
  check(cycles.length === 1 && cycles[0]?.cycleId === cycleId, `the agent recorded ${cycles.length} cycles`);
  const agentEvents = await eventsOf(client, agentWorkflowId(target.agentId));
  const started = agentEvents.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  );
  const closed = agentEvents.filter((e) => e.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED);
  check(started.length === 1 && closed.length === 1, `${started.length} cycles started, ${closed.length} ended`);

  const scratchpad = await agent.query(scratchpadQuery);
  check(
    count(scratchpad.workspace, UPDATE_MARK) === 1,
    `the update appears ${count(scratchpad.workspace, UPDATE_MARK)} times`,
  );
  const tasks = scratchpad.completed_tasks.map((entry) => (typeof entry === 'string' ? entry : entry.task));
  check(new Set(tasks).size === tasks.length, `completed_tasks has duplicates: ${JSON.stringify(tasks)}`);
  check(tasks.filter((name) => name === task).length === 1, `completed_tasks lacks "${task}"`);
  const seen = (await agent.query(directivesQuery)).map((entry) => entry.text);
  const held = (await agent.query(statusQuery)).heldDirectives;
  check(seen.includes(directive) || held.includes(directive), 'the directive was lost');
  check(!Number.isNaN(recoveryMs), 'no progress recorded after the kill');
  return { trial, point, restartMs, recoveryMs, outcome: result.outcome, problems };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}

/** The table of trials, then recovery p50 and max. */
export function report(fault: string, records: TrialRecord[]): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const lines = [
    `Fault: ${fault} (SIGKILL), ${records.length} trials`,
    'trial  kill point          restart  recovery  outcome    checks',
  ];
  for (const record of records) {
    lines.push(
      `${String(record.trial).padStart(5)}  ${record.point.padEnd(18)}  ${seconds(record.restartMs).padStart(5)} s  ` +
        `${seconds(record.recoveryMs).padStart(6)} s  ` +
        `${record.outcome.padEnd(9)}  ${record.problems.length === 0 ? 'ok' : record.problems.join('; ')}`,
    );
  }
  const sorted = records.map((record) => record.recoveryMs).sort((a, b) => a - b);
  lines.push(`recovery p50 ${seconds(percentile(sorted, 0.5))} s, max ${seconds(sorted.at(-1) ?? Number.NaN)} s`);
  return lines.join('\n');
}
