import {
  ContinueAsNew,
  allHandlersFinished,
  condition,
  isCancellation,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { type Draft, type EntryOf, latestStrategy } from '../../core/research/board';
import { RESEARCH_BYTES, boardWithin, linesWithin } from '../../core/research/board-budget';
import { noteLines } from '../../core/research/notes';
import {
  type ParsedResearchInput,
  type ResearchHandover,
  type ResearchInput,
  type ResearchResult,
  composeAnswer,
} from '../../core/research/run';
import { type StepTarget, applyStep, evaluationSteps } from '../../core/research/scheduling';
import { PAYLOAD_BUDGET_BYTES } from '../../core/payload';
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
import { writeFirstStrategy } from './strategy';
import { handoverRefusal, parseResearchStart, receiveDirective } from './research-input';
import { forwardDirectives, needsModelQuery, spawn, withModelQuery } from './workers';
import { startMirroring } from './mirror-lane';
import { researchDetails, researchOutcomeLine } from './research-details';
import { recordOutcomeMemo } from '../cycle/run-details';
import { onApprovalWaits } from '../cycle/approval-notices';
import { outcomeLine } from '../cycle/details-text';
import { failureMessage } from '../../common/failure';

// A store read: an attempt lost with its worker process is retried elsewhere after seconds, not a minute.
const { checkEvidence } = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 5 } });

/**
 * The research supervisor (design.md, The supervisor's loop): holds the board, writes STRATEGY, spawns a worker per
 * fact, tombstones failed URLs, re-delegates unverified facts, reads user directives into STRATEGY, and synthesises
 * only through the gate.
 */
export async function research(rawInput: ResearchInput, rawHandover?: ResearchHandover): Promise<ResearchResult> {
  try {
    return await supervise(rawInput, rawHandover);
  } catch (error) {
    // Continuing as new is no end: the next run records its own.
    if (!(error instanceof ContinueAsNew)) recordThrown(error);
    throw error;
  }
}

/** A run that fails or is cancelled says so in the list and its memo, not `running` for ever. */
function recordThrown(error: unknown): void {
  const outcome = isCancellation(error) ? 'cancelled' : 'failed';
  const line = outcomeLine(outcome, failureMessage(error));
  recordOutcomeMemo(line, line);
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: outcome }]);
}

async function supervise(rawInput: ResearchInput, rawHandover?: ResearchHandover): Promise<ResearchResult> {
  const { input, handover } = parseResearchStart(rawInput, rawHandover);
  const { workflowId } = workflowInfo();
  const run = new ResearchRun(input, workflowId, Date.now(), handover);
  installHandlers(run);
  const mirroring = startMirroring(run);
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
    mirroring?.afterEvaluation();
    endIfTooLarge(run);
    setCurrentDetails(researchDetails(run.entries, run.status()));
    if (run.outcome !== 'running') break;
    const left = run.startedAt + input.timeLimitMs - Date.now();
    // A flood of messages that change nothing still grows the history: it wakes the loop to continue as new.
    const historyFull = () =>
      workflowInfo().historyLength > input.continueAsNewEvents || workflowInfo().continueAsNewSuggested;
    if (left <= 0 || !(await condition(() => run.dirty || historyFull(), left))) {
      run.finish('incomplete');
      break;
    }
    if (historyFull()) {
      await condition(allHandlersFinished);
      const next = run.handover();
      // Checked before it is sent: a handover the next run would refuse, or the server would, ends this one instead.
      const refusal = handoverRefusal(next);
      if (refusal === null) await continueAsNew<typeof research>(rawInput, next);
      run.finish('incomplete');
      run.missing.push(run.note('board:handover', `the run could not continue as new: ${refusal}`).text);
      break;
    }
  }
  await mirroring?.atEnd();
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: run.outcome }]);
  const status = run.status();
  const details = researchDetails(run.entries, status);
  setCurrentDetails(details);
  recordOutcomeMemo(researchOutcomeLine(run.entries, status), details);
  return resultOf(run);
}

/** The result within the payload budget: the final board, its oldest long texts cut if it must be. */
function resultOf(run: ResearchRun): ResearchResult {
  const synthesis = run.entries.find((entry): entry is EntryOf<'SYNTHESIS'> => entry.type === 'SYNTHESIS');
  const { mirror } = run.status();
  return {
    outcome: run.outcome === 'complete' ? 'complete' : 'incomplete',
    ...(synthesis && { answer: synthesis.body.answer }),
    citations: synthesis?.body.citations ?? [],
    missing: linesWithin(run.missing, PAYLOAD_BUDGET_BYTES / 8),
    entries: run.entries.length,
    continuedAsNew: run.generation,
    board: boardWithin(run.entries, RESEARCH_BYTES.resultBoard),
    usage: run.usage,
    notes: noteLines(run.notes),
    ...(mirror && { mirror }),
  };
}

/** A board past its share of the budget could not be handed over at continue-as-new: the run ends here, saying so. */
function endIfTooLarge(run: ResearchRun): void {
  if (run.outcome !== 'running' || run.boardBytes <= RESEARCH_BYTES.board) return;
  run.finish('incomplete');
  const note = run.note('board:size', `the board reached ${run.boardBytes} bytes, near the payload budget`);
  run.missing.push(note.text);
}

function workerIdOf(input: ParsedResearchInput): (n: number) => string {
  return (n) => researchWorkerId(input.runId, n);
}

function installHandlers(run: ResearchRun): void {
  // Answered within the payload budget, so the query never fails: whole unless the board outgrew it.
  setHandler(boardQuery, () => (run.boardBytes <= PAYLOAD_BUDGET_BYTES ? run.entries : boardWithin(run.entries)));
  setHandler(researchStatusQuery, () => run.status());
  setHandler(researchDirectiveSignal, (raw) => receiveDirective(run, raw));
  // A worker relays its cycle's waits (approvals.ts): the details say at once which fact waits, with no evaluation.
  onApprovalWaits((wait) => {
    if (run.approvals.receive(wait, run.active)) setCurrentDetails(researchDetails(run.entries, run.status()));
  });
  setHandler(
    writeUpdate,
    async (request: WriteRequest) => {
      const { author, draft } = run.validate(request);
      return { entry: run.appendWrite({ author, draft: await checked(run, author.id, draft) }, request, Date.now()) };
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

/**
 * VERIFIED is checked, not claimed: the cited fetch and its quote go to the evidence rule with the run's entities,
 * fields and aliases; a claim that fails it is recorded UNVERIFIED with the reason.
 */
async function checked(run: ResearchRun, workerId: string, draft: Draft): Promise<Draft> {
  if (draft.type !== 'VERIFIED') return draft;
  const { entity, field, value, sourceUrl, evidence, quote } = draft.body;
  const strategy = latestStrategy(run.entries)?.body;
  const context = strategy && { entities: strategy.entities, fields: strategy.fields, aliases: strategy.aliases };
  const claim = { entity, field, ...(quote !== undefined && { quote }), ...(context && { run: context }) };
  const verdict = await checkEvidence({ workerId, evidence, sourceUrl, value, ...claim });
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
    forwardDirectives: (texts: readonly string[]) => forwardDirectives(run, texts),
  };
  for (const decided of evaluationSteps(run, { ...run.input, workerId: workerIdOf(run.input) })) {
    // Awaited only when the model writes a query: any other step runs on as it did before queries existed.
    const step = needsModelQuery(run, decided) ? await withModelQuery(run, decided) : decided;
    // Awaited only when a worker starts or directives go out: no other step yields to the workflow's other handlers.
    const started = applyStep(step, target);
    if (started) await started;
  }
}
