import {
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  type CycleOutcome,
  type CycleResult,
  DirectiveTextSchema,
  type ParsedCycleInput,
} from '../../core/cycle/input';
import { PAYLOAD_BUDGET_BYTES, newestWithin } from '../../core/payload';
import { parsedOrDropped } from '../../common/parse-or-drop';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { cycleOutcomeKey } from '../../common/search-attributes';
import {
  afterQuery,
  beforeQuery,
  currentQuery,
  directiveSignal,
  streamChunkSignal,
  traceQuery,
  turnStreamQuery,
} from '../../common/messages/cycle';
import { StreamChunkSchema, StreamPageArgsSchema } from '../../core/cycle/turn-stream';
import { failureMessage } from '../../common/failure';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { runChatTurn } from './chat-turn';
import { CycleRun } from './cycle-run';
import { runTaskLoop } from './task-loop';
import type { CycleFeature } from './tool-handler';
import { cycleDetails, cycleOutcomeLine } from './cycle-details';
import { recordOutcomeMemo } from './run-details';
import { memoryChangeLine } from '../../core/scratchpad/diff';
import { headCodePoints } from '../../core/text';
import { collectAndCheckArchives } from './archive-check';
import { KEPT_UNKNOWN_OUTCOMES } from '../../core/tools/idempotency';

const { archiveContent } = proxyActivities<Activities>({
  startToCloseTimeout: '1m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '1s', maximumAttempts: 10 },
});

/**
 * The cycle (design.md, The cycle), as a function each feature's workflow calls with its parsed input and the
 * features it runs with: the task loop over the task queue, or a chat turn (respond, then reflect) when a feature
 * brings one. An activity that gives up makes the outcome `failed` with the before-state kept. The result has the
 * base fields; the feature's workflow adds its own.
 */
export async function runCycle(input: ParsedCycleInput, features: readonly CycleFeature[]): Promise<CycleResult> {
  const cycleId = input.cycleId ?? workflowInfo().workflowId;
  const archiver = async (section: string, content: string) => {
    const archived = await archiveContent({ agentId: input.agentId, cycleId, section, content });
    return archived.id;
  };
  const run = new CycleRun(input, cycleId, archiver, features);
  let after: Scratchpad | null = null;
  setHandler(beforeQuery, () => input.before);
  setHandler(currentQuery, () => run.state);
  setHandler(afterQuery, () => after);
  // A long cycle's trace can pass what a query may answer: its newest entries within the budget (history has all).
  setHandler(traceQuery, () => newestWithin(run.trace, PAYLOAD_BUDGET_BYTES));
  setHandler(directiveSignal, (raw) => {
    const text = parsedOrDropped(DirectiveTextSchema(), raw, 'directive', (reason) => run.inbox.drop(reason));
    if (text !== undefined) run.inbox.receive(text);
  });
  run.approvals.register();
  setHandler(streamChunkSignal, (raw) => {
    const chunk = parsedOrDropped(StreamChunkSchema(), raw, 'streamChunk');
    if (chunk) run.stream.chunk(chunk);
  });
  setHandler(turnStreamQuery, (raw) => run.stream.page(StreamPageArgsSchema().parse(raw).from));

  let outcome: CycleOutcome;
  let reply: string | undefined;
  let error: string | undefined;
  let missingArchives: string[] = [];
  try {
    missingArchives = await collectAndCheckArchives(run);
    // Always: whether even a built-in asks for approval is the worker's policy, which only its catalogue carries.
    await run.loadTools();
    const chat = features.find((feature) => feature.chat !== undefined)?.chat;
    if (chat) ({ outcome, reply } = await runChatTurn(run, chat));
    else outcome = await runTaskLoop(run);
  } catch (err) {
    if (isCancellation(err)) {
      run.stream.end({ type: 'cancelled' });
      recordEnd(run, 'cancelled', undefined, true);
      throw err;
    }
    outcome = 'failed';
    error = failureMessage(err);
    reply = run.reply;
    run.state = { ...input.before, notes: `Cycle ${cycleId} failed: ${error}` };
    run.stream.end({ type: 'error', message: error });
  }
  // A task cycle's stream has its tool calls; it ends with the cycle (a chat turn's ended with its reply).
  run.stream.end({ type: 'done', reply: reply ?? '', outcome });
  run.noteDropped();
  after = run.state;
  run.publish(`end: ${outcome}`, `**Outcome:** ${outcome}${error ? ` — ${error}` : ''}\n\n`);
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: outcome }]);
  recordEnd(run, outcome, error, false, reply);
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
    ...(missingArchives.length > 0 && { missingArchives }),
    ...(run.runNotes !== undefined ? { runNotes: run.runNotes } : {}),
    ...run.approvals.result(),
    ...(run.memoryUnchanged !== undefined && { memoryUnchanged: run.memoryUnchanged }),
    ...(run.replyCut && { replyCut: true as const }),
    ...(run.models.answeredBy !== undefined && { fallbackModel: run.models.answeredBy }),
    ...(run.unknownOutcomes.length > 0 && { unknownOutcomes: run.unknownOutcomes.slice(-KEPT_UNKNOWN_OUTCOMES) }),
  };
}

/**
 * The outcome and details in the memo, which the Web UI shows with no worker running; a cancelled cycle also says
 * so in `CycleOutcome`, which before it kept the value of its last iteration.
 */
/** Longest memory-change line a cycle's memo keeps, in code points. */
const MEMORY_LINE_POINTS = 300;

function recordEnd(
  run: CycleRun,
  outcome: string,
  error: string | undefined,
  cancelled: boolean,
  reply?: string,
): void {
  const { maxIterations } = run.input;
  const end = {
    outcome,
    error,
    iterations: run.iterations,
    maxIterations,
    usage: run.usage,
    reply,
    after: cancelled ? run.input.before : run.state,
  };
  // One line of what the memory gained or lost, so a list of a thousand cycles reads it from visibility alone.
  const memory = headCodePoints(memoryChangeLine(run.input.before, end.after), MEMORY_LINE_POINTS);
  recordOutcomeMemo(cycleOutcomeLine(end), cycleDetails(end), { memory });
  if (cancelled) upsertSearchAttributes([{ key: cycleOutcomeKey, value: outcome }]);
}
