import {
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  type CycleInput,
  CycleInputSchema,
  type CycleOutcome,
  type CycleResult,
  type ParsedCycleInput,
} from '../core/cycle/input';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { cycleOutcomeKey } from '../common/search-attributes';
import { afterQuery, beforeQuery, currentQuery, traceQuery } from '../common/messages/cycle';
import { runChatTurn } from './cycle/chat-turn';
import { CycleRun } from './cycle/cycle-run';
import { HEARTBEAT_TIMEOUT } from './cycle/activity-options';
import { directiveSignal } from '../common/messages/agent';
import { failureMessage } from '../common/failure';
import { runTaskLoop } from './cycle/task-loop';
import { CycleError } from '../common/failure-types';

const { archiveContent } = proxyActivities<Activities>({
  startToCloseTimeout: '1m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '1s', maximumAttempts: 10 },
});

// A local activity: GC is quick housekeeping on the worker's own store, not worth a task queue round trip per cycle.
const { gcObservations } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
});

function parseInput(raw: CycleInput): ParsedCycleInput {
  const parsed = CycleInputSchema().safeParse(raw);
  // A ZodError thrown here would fail the workflow task forever; fail the workflow instead.
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(`invalid cycle input: ${parsed.error.message}`, CycleError.BadInput);
  }
  return parsed.data;
}

/**
 * One cycle: seed 000's wake → run → sleep over the task queue, or seed 001's respond → reflect
 * chat turn. An activity that gives up makes the outcome `failed` with the before-state kept.
 */
export async function agentCycle(rawInput: CycleInput): Promise<CycleResult> {
  const input = parseInput(rawInput);
  const cycleId = input.cycleId ?? workflowInfo().workflowId;
  const run = new CycleRun(input, cycleId, async (section, content) => {
    const archived = await archiveContent({ agentId: input.agentId, cycleId, section, content });
    return archived.id;
  });
  let after: Scratchpad | null = null;
  setHandler(beforeQuery, () => input.before);
  setHandler(currentQuery, () => run.state);
  setHandler(afterQuery, () => after);
  setHandler(traceQuery, () => run.trace);
  setHandler(directiveSignal, (text) => {
    if (typeof text === 'string' && text.trim() !== '') run.receiveDirective(text);
  });

  let outcome: CycleOutcome;
  let reply: string | undefined;
  let error: string | undefined;
  try {
    // Seed 002: expired observation entries go at the start of every turn.
    await gcObservations();
    if (input.mode === 'chat') {
      ({ outcome, reply } = await runChatTurn(run));
    } else {
      outcome = await runTaskLoop(run);
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    outcome = 'failed';
    error = failureMessage(err);
    reply = run.reply;
    run.state = { ...input.before, notes: `Cycle ${cycleId} failed: ${error}` };
  }
  after = run.state;
  run.publish(`end: ${outcome}`, `**Outcome:** ${outcome}${error ? ` — ${error}` : ''}\n\n`);
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: outcome }]);
  return {
    agentId: input.agentId,
    cycleId,
    outcome,
    after,
    iterations: run.iterations,
    usage: run.usage,
    ...(error ? { error } : {}),
    ...(reply !== undefined ? { reply } : {}),
    directives: run.directives,
    usageByModel: run.usageByModel,
    archived: run.archived,
    ...(run.touchedPaths.length > 0 || input.maxPaths !== undefined ? { touchedPaths: run.touchedPaths } : {}),
    ...(run.refusedPaths.length > 0 ? { refusedPaths: run.refusedPaths } : {}),
    ...(run.scratchpad !== undefined ? { scratchpad: run.scratchpad } : {}),
    ...(run.boardEntry !== undefined ? { boardEntry: run.boardEntry } : {}),
  };
}
