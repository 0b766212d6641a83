import { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import { ScriptedProvider, type ScriptEntry } from '../src/activities/model/scripted';
import type { ToolRegistry } from '../src/activities/tools/registry';
import type { AgentCycleWorkflow } from '../src/common/workflow-types';
import { workerSinks } from '../src/workers/create-worker';
import { type ToolSetup, benchScratchpad } from './cycle-script';
import { type Mode, type Sample, measureInterleaved, timed } from './measure';
import { type Cleanup, type TemporalTarget, connectTarget } from './temporal-target';
import type { ToolKind } from './tools-setup';

const { EventType } = temporal.api.enums.v1;

/** One timed cycle and what its history says about its `runTool` activities. */
export interface CycleSample extends Sample {
  /** `runTool` activities: picked up → completed, summed (server timestamps). */
  toolRunMs: number;
  /** `runTool` activities: scheduled → picked up, summed. */
  toolWaitMs: number;
}

/** Every cycle offers the same tools, so each lists the worker's catalogue and sends the model the same request. */
function offered(kinds: readonly ToolKind[]): string[] {
  return kinds.map((kind) => kind.tool);
}

/** `calls` calls of the kind's tool, then `done`. */
function toolScript(kind: ToolKind, calls: number): ScriptEntry[] {
  const echoes = Array.from({ length: calls }, (_, index) => ({
    tool: kind.tool,
    args: { message: `ping ${index + 1}` },
  }));
  return [...echoes, { tool: 'done', args: { summary: `called ${kind.tool} ${calls} times` } }];
}

/**
 * The `runTool` activities of a cycle: their summed run and wait times; throws unless there are `calls` of them and
 * each returned an `ok` observation (a tool that fails fast must not pass for a fast tool).
 */
async function toolActivities(client: Client, workflowId: string, calls: number) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const byId = new Map(events.map((event) => [String(event.eventId), event]));
  const timeOf = (eventId: unknown) => tsToMs(byId.get(String(eventId))?.eventTime);
  let toolRunMs = 0;
  let toolWaitMs = 0;
  let completed = 0;
  for (const event of events) {
    const attributes = event.activityTaskCompletedEventAttributes;
    if (!attributes) continue;
    const scheduled = byId.get(String(attributes.scheduledEventId));
    if (scheduled?.activityTaskScheduledEventAttributes?.activityType?.name !== 'runTool') continue;
    const data = attributes.result?.payloads?.[0]?.data;
    const observation = data ? (JSON.parse(Buffer.from(data).toString('utf-8')) as { ok?: unknown }) : undefined;
    if (observation?.ok !== true) {
      throw new Error(`${workflowId}: a runTool call did not succeed: ${JSON.stringify(observation).slice(0, 300)}`);
    }
    completed++;
    const startedMs = timeOf(attributes.startedEventId);
    toolRunMs += tsToMs(event.eventTime) - startedMs;
    toolWaitMs += startedMs - timeOf(attributes.scheduledEventId);
  }
  const failed = events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED).length;
  if (completed !== calls || failed > 0) {
    throw new Error(`${workflowId}: ${completed} runTool activities completed and ${failed} failed; expected ${calls}`);
  }
  return { toolRunMs, toolWaitMs };
}

/** A worker with the bench's tools on a fresh task queue, the client, and what closes them. */
export async function openCycleWorker(
  target: TemporalTarget,
  bundle: WorkflowBundleWithSourceMap,
  setup: ToolSetup,
  toolRegistry: ToolRegistry,
  cleanups: Cleanup[],
) {
  const { client, connection, namespace } = await connectTarget(target, cleanups);
  const resolveModel = createModelResolver({});
  const taskQueue = `bench-tools-${process.pid}-${Date.now()}`;
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools: setup.tools, observations: setup.observations, toolRegistry }),
    sinks: workerSinks(),
  });
  return { client, worker, taskQueue, resolveModel };
}

type CycleWorker = Awaited<ReturnType<typeof openCycleWorker>>;

async function runCycle(
  cycleWorker: CycleWorker,
  kinds: readonly ToolKind[],
  kind: ToolKind,
  calls: number,
  run: number,
): Promise<CycleSample> {
  const { client, resolveModel, taskQueue } = cycleWorker;
  // A fresh script per run: a scripted provider's cursor is shared by every call that resolves its spec.
  const spec = `scripted:bench-tools-${kind.key}-${run}`;
  resolveModel.register(spec, new ScriptedProvider(toolScript(kind, calls), spec));
  const workflowId = `agent/bench/${taskQueue}/${kind.key}/${run}`;
  const input = {
    agentId: 'bench',
    before: benchScratchpad(),
    maxIterations: calls + 1,
    model: spec,
    tools: offered(kinds),
  };
  const { ms, value } = await timed(() =>
    client.workflow.execute<AgentCycleWorkflow>('agentCycle', { taskQueue, workflowId, args: [input] }),
  );
  if (value.outcome !== 'completed' || value.iterations !== calls + 1) {
    throw new Error(`${workflowId} ended ${value.outcome} after ${value.iterations} iterations: ${value.error ?? ''}`);
  }
  return { ms, ...(await toolActivities(client, workflowId, calls)) };
}

/** Cycles of `calls` calls of each kind's tool (then `done`) in turns on one worker; samples per kind. */
export async function measureCycles(
  cycleWorker: CycleWorker,
  kinds: readonly ToolKind[],
  options: { calls: number; runs: number },
): Promise<CycleSample[][]> {
  const modes: Mode<CycleSample>[] = kinds.map((kind) => ({
    label: `cycle, ${kind.label}`,
    runOnce: (run) => runCycle(cycleWorker, kinds, kind, options.calls, run),
  }));
  return cycleWorker.worker.runUntil(() => measureInterleaved(modes, options.runs));
}
