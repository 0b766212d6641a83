import {
  ParentClosePolicy,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  startChild,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { tombstonedUrls } from '../../core/research/board';
import { RESEARCH_BYTES } from '../../core/research/board-budget';
import { type WorkerInput, workerGoal } from '../../core/research/run';
import type { SchedulingStep, WorkerStart } from '../../core/research/scheduling';
import { queryFromReply, queryRequest, tombstonedHosts } from '../../core/research/search-query';
import { newestWithin } from '../../core/payload';
import { headCodePoints } from '../../core/text';
import { directiveSignal } from '../../common/messages/cycle';
import { failureMessage } from '../../common/failure';
import { modelActivityOptions } from '../cycle/activity-options';
import { callModelThroughList } from '../cycle/model-fallback';
import type { ResearchRun } from './research-run';
import { researchWorker } from './research-worker';
import { workerInputRefusal } from './research-input';

const { callModel } = proxyActivities<Activities>(modelActivityOptions(3));

/** Starts one worker on its fact, with its capability token. */
export async function spawn(run: ResearchRun, worker: WorkerStart): Promise<void> {
  const { entity, field, workerId, delegated, attempt, searchHint, searchQuery } = worker;
  const input = run.input;
  const args: WorkerInput = {
    supervisorId: run.workflowId,
    workerId,
    entity,
    field,
    goal: workerGoal(run.entries, input.question),
    delegated,
    // The newest within its share: the worker's web_fetch asks the board for every tombstone anyway.
    tombstoned: newestWithin(tombstonedUrls(run.entries), RESEARCH_BYTES.workerTombstones),
    maxTurns: input.maxWorkerTurns,
    attempt,
    ...(searchHint && { searchHint }),
    ...(searchQuery && { searchQuery }),
    ...(input.workerModel && { model: input.workerModel }),
    // uuid4() is the workflow's seeded random: the same token on every replay, and no other run can derive it.
    token: run.tokens.issue(workerId, uuid4()),
  };
  run.spawned.add(workerId);
  const refusal = workerInputRefusal(args);
  if (refusal) {
    // Never expected: a worker not started leaves its fact missing at the end, with the reason here.
    run.note('worker:input', `worker ${workerId} was not started: ${refusal}`);
    return;
  }
  run.active.add(workerId);
  const handle = await startChild(researchWorker, {
    workflowId: workerId,
    // Workers outlive a continue-as-new of the supervisor; they report through `write`, not their result.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [args],
    // Named in the Web UI's list and page with no worker running; its investigation's memo says how it went.
    staticSummary: headCodePoints(`research fact: ${args.entity} / ${args.field}`, 120),
  });
  handle.result().then(
    () => run.workerFinished(workerId),
    () => run.workerFinished(workerId),
  );
}

/**
 * Directives reach running investigations: each worker still investigating is signalled every directive just read
 * into STRATEGY, and hands it to its cycle, which shows it at its next iteration. A worker that ended meanwhile
 * misses nothing it needed; its signal's failure is only logged.
 */
export async function forwardDirectives(run: ResearchRun, texts: readonly string[]): Promise<void> {
  const workers = [...run.active];
  const sends = workers.flatMap((workerId) =>
    texts.map((text) =>
      getExternalWorkflowHandle(workerId)
        .signal(directiveSignal, text)
        .catch((error: unknown) => log.info(`directive not forwarded to ${workerId}: ${failureMessage(error)}`)),
    ),
  );
  await Promise.all(sends);
}

/** Whether `step` re-delegates a tombstoned fact in a run whose own model writes the new query. */
export function needsModelQuery(run: ResearchRun, step: SchedulingStep): boolean {
  return step.kind === 'delegate' && !!step.draft.body.searchQuery && !!run.input.model;
}

/**
 * A re-delegation after a tombstone with the supervisor's own model: the model writes the new query (the tombstoned
 * hosts excluded whatever it says); without a usable reply the deterministic variant already on the step stands.
 */
export async function withModelQuery(run: ResearchRun, step: SchedulingStep): Promise<SchedulingStep> {
  const model = run.input.model;
  if (!needsModelQuery(run, step) || step.kind !== 'delegate' || !model) return step;
  const { entity, field } = step.worker;
  let reply: string | undefined;
  try {
    const response = await callModelThroughList(callModel, queryRequest(run.entries, { entity, field }, model));
    run.countUsage(response.model, response.usage);
    reply = queryFromReply(response.text, tombstonedHosts(run.entries, entity, field));
  } catch (error) {
    run.note('query:model', `the supervisor's model wrote no new query: ${failureMessage(error).slice(0, 200)}`);
  }
  if (!reply) return step;
  return {
    ...step,
    draft: { ...step.draft, body: { ...step.draft.body, searchQuery: reply } },
    worker: { ...step.worker, searchQuery: reply },
  };
}
