import {
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  type BoardEntry,
  type Draft,
  type EntryOf,
  assigneesOf,
  facts,
  tombstonedUrls,
} from '../../core/research/board';
import {
  type ParsedResearchInput,
  type ResearchCarry,
  type ResearchInput,
  type ResearchResult,
  composeAnswer,
  reviseStrategy,
} from '../../core/research/run';
import { renderBoard } from '../../core/research/render';
import { researchWorkerId } from '../../common/ids';
import {
  type WriteRequest,
  boardQuery,
  directiveSignal,
  statusQuery,
  synthesizeUpdate,
  tombstonedSignal,
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
 * The research supervisor (seed 003): holds the board, writes STRATEGY, spawns a worker per fact, tombstones failed
 * URLs, re-delegates unverified facts, reads user directives into STRATEGY, and synthesises only through the gate.
 */
export async function research(rawInput: ResearchInput, rawCarry?: ResearchCarry): Promise<ResearchResult> {
  const { input, carry } = parseResearchStart(rawInput, rawCarry);
  const { workflowId } = workflowInfo();
  const run = new ResearchRun(input, workflowId, Date.now(), carry);
  installHandlers(run);
  upsertSearchAttributes([
    { key: researchRunKey, value: input.runId },
    { key: cycleOutcomeKey, value: 'running' },
  ]);
  const planning = carry ? undefined : writeFirstStrategy(run, workerIdOf(input));
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
      await continueAsNew<typeof research>(rawInput, run.carry());
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
  setHandler(statusQuery, () => run.status());
  setHandler(directiveSignal, (raw) => receiveDirective(run, raw));
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
  const now = Date.now();
  const directives = run.entries.filter((entry) => entry.type === 'USER_DIRECTIVE') as EntryOf<'USER_DIRECTIVE'>[];
  const unread = directives.slice(run.directivesRead);
  if (unread.length > 0 && run.strategy) {
    const body = reviseStrategy(
      run.strategy.body,
      unread.map((entry) => entry.body.text),
    );
    run.appendAsSupervisor({ type: 'STRATEGY', body }, now);
    run.directivesRead = directives.length;
  }
  for (const fact of facts(run.entries)) {
    if (fact.latest?.type !== 'FAILED_URL') continue;
    const { url, failureReason } = fact.latest.body;
    run.appendAsSupervisor(
      { type: 'TOMBSTONE', body: { entity: fact.entity, field: fact.field, url, failureReason, permanent: true } },
      now,
    );
    for (const worker of run.active)
      void getExternalWorkflowHandle(worker)
        .signal(tombstonedSignal, url)
        .catch(() => undefined);
  }
  let stalled = 0;
  for (const fact of facts(run.entries)) {
    if (fact.state === 'VERIFIED') continue;
    if (fact.latest?.type === 'PENDING') {
      // A holder that ended without writing (its writes kept failing) leaves the fact stuck: missing at the end.
      if (!run.active.has(fact.latest.body.assignedTo)) stalled += 1;
      continue;
    }
    const holders = assigneesOf(run.entries, fact.entity, fact.field);
    const assigned = run.strategy?.body.assigned.find((a) => a.entity === fact.entity && a.field === fact.field);
    if (fact.state === 'ASSIGNED' && assigned && run.spawned.has(assigned.worker)) continue;
    if (holders.length >= run.input.maxAttemptsPerFact && fact.state !== 'ASSIGNED') {
      stalled += 1;
      continue;
    }
    if (run.active.size >= run.input.maxWorkers) return;
    if (fact.state === 'ASSIGNED' && assigned) {
      await spawn(run, fact.entity, fact.field, assigned.worker, false, holders.length);
      continue;
    }
    const workerId = researchWorkerId(run.input.runId, run.nextWorker++);
    const tombs = fact.state === 'TOMBSTONE' ? tombstonedUrls(run.entries) : [];
    const searchHint = tombs.length > 0 ? `new search: the sources tried are tombstoned` : undefined;
    run.appendAsSupervisor(
      {
        type: 'PENDING',
        body: { entity: fact.entity, field: fact.field, assignedTo: workerId, ...(searchHint && { searchHint }) },
      },
      now,
    );
    await spawn(run, fact.entity, fact.field, workerId, true, holders.length + 1, searchHint);
  }
  const all = facts(run.entries);
  if (all.length > 0 && all.every((fact) => fact.state === 'VERIFIED')) {
    run.appendAsSupervisor({ type: 'SYNTHESIS', body: composeAnswer(run.input.question, run.entries) }, now);
    run.finish('complete');
  } else if (run.active.size === 0 && !run.dirty && stalled > 0) {
    run.finish('incomplete');
  }
}

async function spawn(
  run: ResearchRun,
  entity: string,
  field: string,
  workerId: string,
  delegated: boolean,
  attempt: number,
  searchHint?: string,
): Promise<void> {
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
