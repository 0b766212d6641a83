import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { type AgentTarget, updateAgent } from '../src/clients/agents';
import type { SendResult } from '../src/core/agent/agent';
import type { CycleResult } from '../src/core/cycle/input';
import type { AgentCycleWorkflow } from '../src/common/workflow-types';
import { sendUpdate } from '../src/common/messages/agent';
import type { ScriptedTurn } from './context-script';
import { progress } from './measure';
import { agentWorkflowId } from '../src/common/ids';

/** What the chat turns through the agent workflow produced. */
export interface ConversationRun {
  agentId: string;
  /** The agent workflow's first run, where its history starts. */
  firstRunId?: string;
  /** The turns that completed, in order. */
  results: SendResult[];
  /** Why the conversation stopped early. */
  error?: string;
}

const RETRY_POLL_MS = 2000;

/** A cycle's activity that has failed and is waiting to be retried, described; undefined when there is none. */
async function retryingActivity(client: Client, cycleId: string): Promise<string | undefined> {
  const description = await client.workflow
    .getHandle(cycleId)
    .describe()
    .catch(() => undefined);
  const pending = description?.raw.pendingActivities?.find((activity) => (activity.attempt ?? 0) > 1);
  if (!pending) return undefined;
  const failure = pending.lastFailure?.message ?? 'no failure recorded';
  return `activity ${pending.activityType?.name} failed ${(pending.attempt ?? 1) - 1} time(s) and is being retried: ${failure}`;
}

/**
 * Waits for `work`, but gives up as soon as the cycle is retrying an activity: nothing in this benchmark should
 * fail, and an activity's retries would otherwise hold the turn for minutes before the cycle ends `failed`.
 */
async function unlessRetrying<T>(client: Client, cycleId: string, work: Promise<T>): Promise<T> {
  const settled = work.then((value) => ({ value }));
  // The turn may still settle after we gave up on it (the agent is terminated at teardown).
  settled.catch(() => undefined);
  for (;;) {
    const first = await Promise.race([settled, delay(RETRY_POLL_MS)]);
    if (first) return first.value;
    const problem = await retryingActivity(client, cycleId);
    if (problem) throw new Error(`${cycleId}: ${problem}`);
  }
}

async function failedCycleError(client: Client, cycleId: string): Promise<string> {
  const result = (await client.workflow.getHandle<AgentCycleWorkflow>(cycleId).result()) as CycleResult;
  return `${cycleId} ended failed: ${result.error ?? 'no error recorded'}`;
}

async function firstRunId(client: Client, agentId: string): Promise<string> {
  return (await client.workflow.getHandle(agentWorkflowId(agentId)).describe()).runId;
}

/** One chat turn through the `send` update; throws unless the cycle completed with the scripted reply. */
async function sendTurn(client: Client, target: AgentTarget, turn: ScriptedTurn, index: number): Promise<SendResult> {
  const cycleId = `agent/${target.agentId}/cycle/${index + 1}`;
  const send = updateAgent(client, target, sendUpdate, [{ message: turn.input }]);
  const result = await unlessRetrying(client, cycleId, send);
  if (result.outcome === 'failed') throw new Error(await failedCycleError(client, result.cycleId));
  if (result.outcome !== 'completed') throw new Error(`${result.cycleId} ended ${result.outcome}`);
  if (result.reply !== turn.reply) throw new Error(`${result.cycleId}: the reply is not the scripted one`);
  // The reply comes before reflect: the turn is measured once its cycle, reflect included, has ended.
  const handle = client.workflow.getHandle<AgentCycleWorkflow>(cycleId);
  const cycle = (await unlessRetrying(client, cycleId, handle.result())) as CycleResult;
  if (cycle.outcome === 'failed') throw new Error(await failedCycleError(client, cycleId));
  return result;
}

/** Sends every turn in order to a fresh agent, stopping at the first turn that does not complete. */
export async function runConversation(
  client: Client,
  target: AgentTarget,
  turns: readonly ScriptedTurn[],
): Promise<ConversationRun> {
  const run: ConversationRun = { agentId: target.agentId, results: [] };
  try {
    for (const [index, turn] of turns.entries()) {
      run.results.push(await sendTurn(client, target, turn, index));
      if (index === 0) run.firstRunId = await firstRunId(client, target.agentId);
      if ((index + 1) % 10 === 0) progress(`turn ${index + 1}/${turns.length}`);
    }
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    progress(`stopped after ${run.results.length} turns: ${run.error}`);
  }
  // No turn completed, so no continue-as-new happened: the current run is the first.
  run.firstRunId ??= await firstRunId(client, target.agentId).catch(() => undefined);
  return run;
}
