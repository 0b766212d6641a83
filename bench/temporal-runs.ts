import type { Client } from '@temporalio/client';
import { type NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { type ModelResolver, createModelResolver } from '../src/activities/model/registry';
import { ScriptedProvider } from '../src/activities/model/scripted';
import type { AgentCycleWorkflow } from '../src/common/workflow-types';
import { workerSinks } from '../src/workers/create-worker';
import { type ToolSetup, benchScratchpad, echoScript } from './cycle-script';
import { floorActivities } from './floor-activities';
import type { floorCycle } from './floor-workflow';
import { type HistoryStats, historyStats } from './history-stats';
import { type Mode, type Sample, measureInterleaved, timed } from './measure';

/** What the Temporal modes share: one client, one worker connection, the namespace. */
export interface TemporalContext {
  client: Client;
  connection: NativeConnection;
  namespace: string;
}

/** One timed workflow run and the size of its history (fetched after the clock stopped). */
export interface TemporalSample extends Sample {
  history: HistoryStats;
}

/** A Temporal mode: its in-process worker and how to run it once. */
interface TemporalMode extends Mode<TemporalSample> {
  worker: Worker;
}

function uniqueTaskQueue(name: string): string {
  return `bench-${name}-${process.pid}-${Date.now()}`;
}

async function runAgentCycle(
  context: TemporalContext,
  resolveModel: ModelResolver,
  taskQueue: string,
  iterations: number,
  run: number,
): Promise<TemporalSample> {
  // A fresh script per run: a scripted provider's cursor is shared by every call that resolves its spec.
  const spec = `scripted:bench-${run}`;
  resolveModel.register(spec, new ScriptedProvider(echoScript(iterations), spec));
  const workflowId = `agent/bench/${taskQueue}/cycle/${run}`;
  const input = { agentId: 'bench', before: benchScratchpad(), maxIterations: iterations, model: spec };
  const { ms, value } = await timed(() =>
    context.client.workflow.execute<AgentCycleWorkflow>('agentCycle', { taskQueue, workflowId, args: [input] }),
  );
  if (value.outcome !== 'completed' || value.iterations !== iterations) {
    throw new Error(
      `agentCycle ${workflowId} ended ${value.outcome} after ${value.iterations} iterations: ${value.error ?? ''}`,
    );
  }
  return { ms, history: await historyStats(context.client, workflowId) };
}

/** `agentCycle` with a scripted zero-latency model and the real `echo` tool through the real activities. */
async function agentCycleMode(
  context: TemporalContext,
  bundle: WorkflowBundleWithSourceMap,
  setup: ToolSetup,
  iterations: number,
): Promise<TemporalMode> {
  const resolveModel = createModelResolver({});
  const taskQueue = uniqueTaskQueue('agent-cycle');
  const worker = await Worker.create({
    connection: context.connection,
    namespace: context.namespace,
    taskQueue,
    workflowBundle: bundle,
    activities: createActivities({ resolveModel, tools: setup.tools, observations: setup.observations }),
    sinks: workerSinks(),
  });
  return {
    label: 'agentCycle',
    worker,
    runOnce: (run) => runAgentCycle(context, resolveModel, taskQueue, iterations, run),
  };
}

async function runFloor(
  context: TemporalContext,
  taskQueue: string,
  iterations: number,
  run: number,
): Promise<TemporalSample> {
  const workflowId = `bench/${taskQueue}/floor/${run}`;
  // maxAttempts 5 is agentCycle's default.
  const args: Parameters<typeof floorCycle> = [{ iterations, maxAttempts: 5 }];
  const { ms } = await timed(() =>
    context.client.workflow.execute<typeof floorCycle>('floorCycle', { taskQueue, workflowId, args }),
  );
  return { ms, history: await historyStats(context.client, workflowId) };
}

/** The floor workflow: two no-op activities per iteration. */
async function floorMode(
  context: TemporalContext,
  bundle: WorkflowBundleWithSourceMap,
  iterations: number,
): Promise<TemporalMode> {
  const taskQueue = uniqueTaskQueue('floor');
  const worker = await Worker.create({
    connection: context.connection,
    namespace: context.namespace,
    taskQueue,
    workflowBundle: bundle,
    activities: floorActivities,
  });
  return { label: 'floor', worker, runOnce: (run) => runFloor(context, taskQueue, iterations, run) };
}

/** Measures `agentCycle` and the floor in turns, each on its own in-process worker; returns both sample lists. */
export async function measureTemporalModes(
  context: TemporalContext,
  bundles: { agentCycle: WorkflowBundleWithSourceMap; floor: WorkflowBundleWithSourceMap },
  setup: ToolSetup,
  options: { iterations: number; runs: number },
): Promise<{ agentCycle: TemporalSample[]; floor: TemporalSample[] }> {
  const cycle = await agentCycleMode(context, bundles.agentCycle, setup, options.iterations);
  const floor = await floorMode(context, bundles.floor, options.iterations);
  const [cycleSamples, floorSamples] = await cycle.worker.runUntil(() =>
    floor.worker.runUntil(() => measureInterleaved([cycle, floor], options.runs)),
  );
  return { agentCycle: cycleSamples!, floor: floorSamples! };
}
