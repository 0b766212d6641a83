import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { agentWorkflowId, cycleWorkflowId } from '../src/common/ids';
import { median, progress, table } from './measure';
import { devServerTarget } from './throughput-targets';
import { withBenchSession } from './throughput-session';
import { agentCycle, floorCycle } from './throughput-workers';

const USAGE = `usage: node [--cpu-prof] dist/bench/throughput-tasks.js [--shapes agent,floor] [--size 10] [--rounds 5]
Runs rounds of --size concurrent one-cycle entities per shape on a fresh dev server, then reads every history:
workflow tasks, events and bytes per cycle, and each task's run time (started -> completed) by its position.
With one shape and node --cpu-prof, the profile shows that shape's worker alone.`;

const { EventType } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Shape = 'agent' | 'floor';

interface Options {
  shapes: Shape[];
  size: number;
  rounds: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { shapes: ['agent', 'floor'], size: 10, rounds: 5 };
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value = ''] = [argv[index], argv[index + 1]];
    if (flag === '--shapes') options.shapes = value.split(',') as Shape[];
    else if (flag === '--size') options.size = Number(value);
    else if (flag === '--rounds') options.rounds = Number(value);
    else throw new Error(USAGE);
  }
  const valid = options.shapes.every((shape) => shape === 'agent' || shape === 'floor');
  if (!valid || !(options.size >= 1) || !(options.rounds >= 1)) throw new Error(USAGE);
  return options;
}

/** One workflow task: what the worker was handed (the events since the previous task) and how long it took. */
interface TaskTiming {
  runMs: number;
  /** Event types that arrived since the previous task completed, i.e. what woke the workflow. */
  trigger: string;
}

interface WorkflowTasks {
  events: number;
  bytes: number;
  tasks: TaskTiming[];
}

const typeName = (event: HistoryEvent) =>
  (EventType[event.eventType ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '').toLowerCase();

function tasksOf(events: readonly HistoryEvent[]): TaskTiming[] {
  const times = new Map(events.map((event) => [String(event.eventId), tsToMs(event.eventTime)]));
  const tasks: TaskTiming[] = [];
  let since: string[] = [];
  for (const event of events) {
    const completed = event.workflowTaskCompletedEventAttributes;
    if (completed) {
      const runMs = tsToMs(event.eventTime) - (times.get(String(completed.startedEventId)) ?? NaN);
      tasks.push({ runMs, trigger: [...new Set(since)].join('+') });
      since = [];
    } else if (!/^workflow_task_/.test(typeName(event))) since.push(typeName(event));
  }
  return tasks;
}

async function workflowTasks(client: Client, workflowId: string): Promise<WorkflowTasks> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const bytes = temporal.api.history.v1.History.encode(history).finish().length;
  return { events: events.length, bytes, tasks: tasksOf(events) };
}

async function runShape(client: Client, queue: string, shape: Shape, options: Options, stamp: string) {
  const entities: string[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const ids = Array.from({ length: options.size }, (_, index) => `tt-${shape}-${stamp}-${round}-${index}`);
    const started = performance.now();
    await Promise.all(ids.map((id) => (shape === 'agent' ? agentCycle : floorCycle)(client, queue, id)));
    progress(`${shape} round ${round}/${options.rounds}: ${((performance.now() - started) / 1000).toFixed(2)} s`);
    entities.push(...ids);
  }
  const parents = await Promise.all(
    entities.map((id) => workflowTasks(client, shape === 'agent' ? agentWorkflowId(id) : id)),
  );
  const children = await Promise.all(
    entities.map((id) => workflowTasks(client, shape === 'agent' ? cycleWorkflowId(id, 1) : `${id}/cycle/1`)),
  );
  return { parents, children };
}

/** Median run time of the n-th task over all workflows of a kind, with its most common trigger. */
function byPosition(label: string, workflows: WorkflowTasks[]): string[][] {
  const count = Math.max(...workflows.map((workflow) => workflow.tasks.length));
  return Array.from({ length: count }, (_, position) => {
    const tasks = workflows.map((workflow) => workflow.tasks[position]).filter((task) => task !== undefined);
    const triggers = new Map<string, number>();
    for (const task of tasks) triggers.set(task.trigger, (triggers.get(task.trigger) ?? 0) + 1);
    const trigger = [...triggers].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
    const runMs = median(tasks.map((task) => task.runMs));
    return [`${label} task ${position + 1}`, String(tasks.length), runMs.toFixed(1), trigger];
  });
}

function summary(shape: Shape, result: { parents: WorkflowTasks[]; children: WorkflowTasks[] }): string {
  const perCycle = (pick: (workflow: WorkflowTasks) => number) =>
    median(result.parents.map((parent, index) => pick(parent) + pick(result.children[index]!)));
  const runMs = (workflow: WorkflowTasks) => workflow.tasks.reduce((sum, task) => sum + task.runMs, 0);
  const totals = table([
    ['per cycle (median)', 'workflow tasks', 'events', 'history bytes', 'workflow task run ms'],
    [
      `${shape} (entity + child)`,
      String(perCycle((workflow) => workflow.tasks.length)),
      String(perCycle((workflow) => workflow.events)),
      String(perCycle((workflow) => workflow.bytes)),
      perCycle(runMs).toFixed(1),
    ],
  ]);
  const tasks = table([
    ['task', 'seen', 'median run ms', 'woken by (most often)'],
    ...byPosition('entity', result.parents),
    ...byPosition('child', result.children),
  ]);
  return `${totals}\n\n${tasks}`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await withBenchSession(devServerTarget, options.shapes, async ({ client, workers }) => {
    const stamp = Date.now().toString(36);
    for (const shape of options.shapes) {
      const queue = shape === 'agent' ? workers.agentQueue : workers.floorQueue;
      await runShape(client, queue, shape, { ...options, rounds: 1 }, `${stamp}-warm`);
      console.log(`${shape}: ${options.rounds} rounds of ${options.size} concurrent one-cycle entities`);
      console.log(`${summary(shape, await runShape(client, queue, shape, options, stamp))}\n`);
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
