import {
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { type BoardEntry, type Draft, type EntryOf, tombstonedUrls } from '../../core/research/board';
import {
  type ParsedResearchInput,
  type ResearchHandover,
  type ResearchInput,
  type ResearchResult,
  composeAnswer,
} from '../../core/research/run';
import { type StepTarget, type WorkerStart, applyStep, evaluationSteps } from '../../core/research/scheduling';
import { renderBoard } from '../../core/research/render';
import { researchWorkerId } from '../../common/ids';
import {
  type WriteRequest,
  boardQuery,
  researchDirectiveSignal,
  researchStatusQuery,
  synthesizeUpdate,
  writeUpdate,
} from '../../common/messages/research';
import { cycleOutcomeKey, researchRunKey } from '../../common/search-attributes';
import { ResearchRun } from './research-run';
import { researchWorker } from './research-worker';
import { writeFirstStrategy } from './strategy';
import { parseResearchStart, receiveDirective } from './research-input';

// A store read: an attempt lost with its worker process is retried elsewhere after seconds, not a minute.
const { checkEvidence } = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 5 } });
const { mirrorEntries } = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 10 } });

/**
 * The research supervisor (design.md, The supervisor's loop): holds the board, writes STRATEGY, spawns a worker per
 * fact, tombstones failed URLs, re-delegates unverified facts, reads user directives into STRATEGY, and synthesises
 * only through the gate.
 */
export async function research(rawInput: ResearchInput, rawHandover?: ResearchHandover): Promise<ResearchResult> {
  const { input, handover } = parseResearchStart(rawInput, rawHandover);
  const { workflowId } = workflowInfo();
  const run = new ResearchRun(input, workflowId, Date.now(), handover);
  installHandlers(run);
  upsertSearchAttributes([
    { key: researchRunKey, value: input.runId },
    { key: cycleOutcomeKey, value: 'running' },
  ]);
  const planning = handover ? undefined : writeFirstStrategy(run, workerIdOf(input));
  if (planning) await planning;
  for (;;) {
    run.dirty = false;
    run.turn += 1;
    await evaluate(run);
    await mirror(run);
    setCurrentDetails(renderBoard(run.entries, run.status()));
    if (run.outcome !== 'running') break;
    const left = run.startedAt + input.timeLimitMs - Date.now();
    if (left <= 0 || !(await condition(() => run.dirty, left))) {
      run.finish('incomplete');
      break;
    }
    if (workflowInfo().historyLength > input.continueAsNewEvents || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof research>(rawInput, run.handover());
    }
  }
  await mirror(run, true);
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: run.outcome }]);
  setCurrentDetails(renderBoard(run.entries, run.status()));
  const synthesis = run.entries.find((entry): entry is EntryOf<'SYNTHESIS'> => entry.type === 'SYNTHESIS');
  return {
    outcome: run.outcome === 'complete' ? 'complete' : 'incomplete',
    ...(synthesis && { answer: synthesis.body.answer }),
    citations: synthesis?.body.citations ?? [],
    missing: run.missing,
    entries: run.entries.length,
    continuedAsNew: run.generation,
    board: run.entries,
    usage: run.usage,
  };
}

function workerIdOf(input: ParsedResearchInput): (n: number) => string {
  return (n) => researchWorkerId(input.runId, n);
}

function installHandlers(run: ResearchRun): void {
  setHandler(boardQuery, () => run.entries);
  setHandler(researchStatusQuery, () => run.status());
  setHandler(researchDirectiveSignal, (raw) => receiveDirective(run, raw));
  setHandler(
    writeUpdate,
    async (request: WriteRequest) => {
      const { author, draft } = run.validate(request);
      return { entry: run.appendWrite({ author, draft: await checked(author.id, draft) }, request, Date.now()) };
    },
    { validator: (request) => void run.validate(request) },
  );
  setHandler(
    synthesizeUpdate,
    () => {
      const draft: Draft = { type: 'SYNTHESIS', body: composeAnswer(run.input.question, run.entries) };
      const entry = run.appendAsSupervisor(draft, Date.now());
      run.finish('complete');
      return { entry };
    },
    {
      validator: () =>
        run.check(run.supervisor, { type: 'SYNTHESIS', body: composeAnswer(run.input.question, run.entries) }),
    },
  );
}

/** VERIFIED is checked, not claimed: a claim whose evidence fails is recorded UNVERIFIED with the reason. */
async function checked(workerId: string, draft: Draft): Promise<Draft> {
  if (draft.type !== 'VERIFIED') return draft;
  const { entity, field, value, sourceUrl, evidence } = draft.body;
  const verdict = await checkEvidence({ workerId, evidence, sourceUrl, value });
  if (verdict.ok) return draft;
  return { type: 'UNVERIFIED', body: { entity, field, claimedValue: value, reason: verdict.reason.slice(0, 2000) } };
}

async function evaluate(run: ResearchRun): Promise<void> {
  // One time for every entry of the evaluation, though workflow time moves on while workers start.
  const now = Date.now();
  const target: StepTarget = {
    append: (draft) => void run.appendAsSupervisor(draft, now),
    readDirectives: (count) => void (run.directivesRead = count),
    takeWorkerNumbers: (next) => void (run.nextWorker = next),
    start: (worker) => spawn(run, worker),
    finish: (outcome) => run.finish(outcome),
  };
  for (const step of evaluationSteps(run, { ...run.input, workerId: workerIdOf(run.input) })) {
    // Awaited only when a worker starts, as before: no other step yields to the workflow's other handlers.
    const started = applyStep(step, target);
    if (started) await started;
  }
}

async function spawn(run: ResearchRun, worker: WorkerStart): Promise<void> {
  const { entity, field, workerId, delegated, attempt, searchHint } = worker;
  run.active.add(workerId);
  run.spawned.add(workerId);
  const input = run.input;
  const handle = await startChild(researchWorker, {
    workflowId: workerId,
    // Workers outlive a continue-as-new of the supervisor; they report through `write`, not their result.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        supervisorId: run.workflowId,
        workerId,
        entity,
        field,
        goal: run.strategy?.body.goal ?? input.question,
        delegated,
        tombstoned: tombstonedUrls(run.entries),
        maxTurns: input.maxWorkerTurns,
        attempt,
        ...(searchHint && { searchHint }),
        ...(input.workerModel && { model: input.workerModel }),
      },
    ],
  });
  handle.result().then(
    () => run.workerFinished(workerId),
    () => run.workerFinished(workerId),
  );
}

async function mirror(run: ResearchRun, final = false): Promise<void> {
  if (!run.input.mirror) return;
  const fresh: BoardEntry[] = run.entries.slice(run.mirrored);
  if (fresh.length === 0 && !final) return;
  await mirrorEntries({ url: run.input.mirror, runId: run.input.runId, entries: fresh, final });
  run.mirrored += fresh.length;
}
