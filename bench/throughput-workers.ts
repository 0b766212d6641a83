import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, WithStartWorkflowOperation, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import {
  type NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import type { ModelProvider, ProviderRequest } from '../src/activities/model/provider';
import { updateAgent } from '../src/clients/agents';
import { runCycleUpdate } from '../src/common/messages/agent';
import { workerSinks } from '../src/workers/create-worker';
import { type ModelResponse, contentText } from '../src/core/cycle/model';
import type { ToolSetup } from './cycle-script';
import { runFloorUpdate } from './floor-entity';

/** The fixed time the model takes to answer, in the agent and in the floor alike. */
export const MODEL_MS = 200;
export const MODEL_SPEC = 'bench:echo';

/** Answers after {@link MODEL_MS}: `echo` first, `done` once the prompt shows the echo ran (stateless, any worker). */
class FixedLatencyModel implements ModelProvider {
  readonly spec = MODEL_SPEC;
  async complete(request: ProviderRequest): Promise<ModelResponse> {
    await sleep(MODEL_MS);
    const echoed = request.messages.some((message) => contentText(message.content).includes('[TOOL] echo('));
    const call = echoed
      ? { id: 'done', name: 'done', input: { summary: 'echoed once' } }
      : { id: 'echo', name: 'echo', input: { message: 'hello' } };
    const usage = { inputTokens: 1000, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
    return { text: '', toolCalls: [call], stopReason: 'tool_use', usage, model: MODEL_SPEC };
  }
}

/** The same activities as agentCycle's in count and options; the model stand-in takes the model's time. */
const floorActivities = {
  async modelStandIn(): Promise<void> {
    await sleep(MODEL_MS);
  },
  async toolStandIn(): Promise<void> {},
};

export interface BenchWorkers {
  agentQueue: string;
  floorQueue: string;
  /**
   * A fresh worker of `shape` on a queue of its own that runs its workflows on this thread (the SDK's `debugMode`,
   * same reusable context and bundle), so their heap is this process's heap and can be measured.
   */
  inThread(shape: 'agent' | 'floor'): Promise<{ worker: Worker; taskQueue: string }>;
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

/** One in-process worker per shape, default worker options, as `scratchpad worker` runs them. */
export async function startBenchWorkers(
  connection: NativeConnection,
  client: Client,
  namespace: string,
  bundles: { agent: WorkflowBundleWithSourceMap; floor: WorkflowBundleWithSourceMap },
  setup: ToolSetup,
  shapes: readonly ('agent' | 'floor')[] = ['agent', 'floor'],
): Promise<BenchWorkers> {
  const suffix = `${process.pid}-${Date.now()}`;
  const agentQueue = `throughput-agent-${suffix}`;
  const floorQueue = `throughput-floor-${suffix}`;
  const resolveModel = createModelResolver({ providers: { [MODEL_SPEC]: new FixedLatencyModel() } });
  const activities = createActivities({ resolveModel, tools: setup.tools, observations: setup.observations, client });
  const agentOptions = { taskQueue: agentQueue, workflowBundle: bundles.agent, activities, sinks: workerSinks() };
  const floorOptions = { taskQueue: floorQueue, workflowBundle: bundles.floor, activities: floorActivities };
  // A profile of one shape (bench/throughput-tasks.ts) must not include the other's worker.
  const create = (shape: 'agent' | 'floor', options: WorkerOptions) =>
    shapes.includes(shape) ? Worker.create({ connection, namespace, ...options }) : undefined;
  const inThread = async (shape: 'agent' | 'floor') => {
    const taskQueue = `${shape === 'agent' ? agentQueue : floorQueue}-in-thread`;
    const options = { ...(shape === 'agent' ? agentOptions : floorOptions), taskQueue, debugMode: true };
    return { worker: await Worker.create({ connection, namespace, ...options }), taskQueue };
  };
  const agentWorker = await create('agent', agentOptions);
  const floorWorker = await create('floor', floorOptions);
  const serving = [agentWorker, floorWorker].filter((worker) => worker !== undefined);
  const running = Promise.all(serving.map((worker) => worker.run()));
  return {
    agentQueue,
    floorQueue,
    inThread,
    run: async () => void (await running),
    async shutdown() {
      // A worker stops by itself on SIGINT / SIGTERM (the SDK's runtime handles them); shutting it again throws.
      for (const worker of serving) if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

const RPC_ATTEMPTS = 5;

/**
 * Sends an update-with-start again, with the same update id, when the server gave up waiting for it: with a backlog of
 * hundreds of new workflows, one may wait in the task queue longer than the server holds the call open ("context
 * deadline exceeded"). The server knows the update by its id, so a second call waits for the same update.
 */
async function untilAnswered<T>(send: (updateId: string) => Promise<T>, updateId: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(updateId);
    } catch (error) {
      if (!(error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) || attempt === RPC_ATTEMPTS) throw error;
    }
  }
}

/** One new agent running one task cycle (update-with-start), until the cycle is adopted. */
export async function agentCycle(client: Client, taskQueue: string, agentId: string): Promise<void> {
  const settings = { model: MODEL_SPEC };
  const cycle = () => ({ tasks: ['Echo hello once, then finish'], model: MODEL_SPEC });
  const record = await untilAnswered(
    (updateId) => updateAgent(client, { agentId, taskQueue, settings }, runCycleUpdate, [cycle()], { updateId }),
    `${agentId}-cycle`,
  );
  if (record.outcome !== 'completed') throw new Error(`${record.cycleId} ended ${record.outcome}: ${record.error}`);
}

/** One new floor entity running one child cycle of the same activities (update-with-start). */
export async function floorCycle(client: Client, taskQueue: string, entityId: string): Promise<void> {
  // A start operation serves one call; a second call needs its own.
  const startWorkflowOperation = () =>
    new WithStartWorkflowOperation('floorEntity', {
      workflowId: entityId,
      taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  // Two iterations: model, tool, model; the agent's echo-then-done cycle runs the same three activities.
  await untilAnswered(
    (updateId) =>
      client.workflow.executeUpdateWithStart(runFloorUpdate, {
        args: [2],
        startWorkflowOperation: startWorkflowOperation(),
        updateId,
      }),
    `${entityId}-cycle`,
  );
}
