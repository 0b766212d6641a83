import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createModelResolver } from '../src/activities/model/registry';
import { ScriptedProvider } from '../src/activities/model/scripted';
import { type AgentTarget } from '../src/clients/agents';
import { DEFAULT_BUDGET_CHARS } from '../src/core/scratchpad/budget';
import { WORKFLOWS_PATH, workerSinks, workflowBundleOptions } from '../src/workers/create-worker';
import { benchToolSetup } from './cycle-script';
import { measureCycles } from './context-cycles';
import { formatContextReport } from './context-format';
import { agentHistory } from './context-history';
import { type ContextOptions, parseContextOptions } from './context-options';
import { phaseChars, transcriptChars } from './context-prompts';
import { buildContextReport } from './context-report';
import { type ConversationRun, runConversation } from './context-run';
import { type ScriptedTurn, conversationScript, scriptedConversation } from './context-script';
import { progress } from './measure';
import type { TemporalContext } from './temporal-runs';
import {
  type Cleanup,
  type TemporalTarget,
  connectTarget,
  openTemporalTarget,
  quietBundlerLogger,
  runBenchmark,
} from './temporal-target';
import { agentWorkflowId } from '../src/common/ids';

const MODEL_SPEC = 'scripted:context-size';

/** The real activities, with the scripted model and the project's default observation store (a SQLite file). */
function workerActivities(model: ScriptedProvider, cleanups: Cleanup[]) {
  const setup = benchToolSetup();
  cleanups.push(() => setup.close());
  const resolveModel = createModelResolver({ defaultSpec: MODEL_SPEC, providers: { [MODEL_SPEC]: model } });
  return createActivities({ resolveModel, tools: setup.tools, observations: setup.observations });
}

/** Runs the conversation on its own worker; the agent is terminated before the worker stops. */
async function converse(
  context: TemporalContext,
  target: TemporalTarget,
  options: ContextOptions,
  turns: readonly ScriptedTurn[],
  activities: ReturnType<typeof createActivities>,
): Promise<ConversationRun> {
  progress(`bundling ${WORKFLOWS_PATH}`);
  const workflowBundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const taskQueue = `bench-context-size-${process.pid}-${Date.now()}`;
  const worker = await Worker.create({
    connection: context.connection,
    namespace: target.namespace,
    taskQueue,
    workflowBundle,
    activities,
    sinks: workerSinks(),
  });
  const agent: AgentTarget = { agentId: taskQueue, taskQueue, settings: { budgetChars: options.budgetChars } };
  return worker.runUntil(async () => {
    try {
      return await runConversation(context.client, agent, turns);
    } finally {
      // The agent waits for messages forever; ending it also ends a cycle left retrying (parent close policy).
      await context.client.workflow
        .getHandle(agentWorkflowId(agent.agentId))
        .terminate('context-size benchmark finished')
        .catch(() => undefined);
    }
  });
}

async function run(options: ContextOptions, cleanups: Cleanup[]): Promise<boolean> {
  const turns = scriptedConversation(options.turns);
  const model = new ScriptedProvider(conversationScript(turns), 'context-size');
  const activities = workerActivities(model, cleanups);
  const archiveContentRegistered = 'archiveContent' in activities;
  if (!archiveContentRegistered) {
    progress('WARNING: archiveContent is not among the activities of src/activities/index.ts;');
    progress(`cycles will fail once the scratchpad passes its ${options.budgetChars}-char budget`);
  }
  // openTemporalTarget takes cycle-overhead's options but reads only the address and namespace.
  const target = await openTemporalTarget({ ...options, iterations: 1, runs: 1 });
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);

  const conversation = await converse(context, target, options, turns, activities);
  const cycles = await measureCycles(context.client, conversation.results, turns);
  progress('fetching the agent workflow history');
  const agentWorkflow = agentWorkflowId(conversation.agentId);
  const agent = conversation.firstRunId && (await agentHistory(context.client, agentWorkflow, conversation.firstRunId));
  const completed = conversation.results.length;
  const exchanges = conversation.results.map((result, index) => ({ input: turns[index]!.input, reply: result.reply }));
  const report = buildContextReport({
    turns: options.turns,
    budgetChars: options.budgetChars,
    defaultBudgetChars: DEFAULT_BUDGET_CHARS,
    server: target.description,
    archiveContentRegistered,
    // A turn that stopped the run may have reached the model without completing.
    respondChars: phaseChars(model.requests, 'respond').slice(0, completed),
    reflectChars: phaseChars(model.requests, 'reflect').slice(0, completed),
    transcriptChars: transcriptChars(exchanges),
    cycles,
    ...(agent ? { agent } : {}),
    ...(conversation.error ? { error: conversation.error } : {}),
  });
  console.log(formatContextReport(report));
  console.log(JSON.stringify({ benchmark: 'context-size', ...report }));
  return !conversation.error;
}

runBenchmark((cleanups) => run(parseContextOptions(process.argv.slice(2)), cleanups));
