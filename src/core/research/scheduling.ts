import {
  BOARD_LIMITS,
  type BoardEntry,
  type Draft,
  type EntryBody,
  type EntryOf,
  assigneesOf,
  facts,
  latestStrategy,
  tombstonedUrls,
} from './board';
import { composeAnswer, reviseStrategy } from './run';
import { tombstoneQuery } from './search-query';

/** What the supervisor's scheduling reads of its run; the workflow's `ResearchRun` is one. */
export interface SchedulingView {
  readonly entries: readonly BoardEntry[];
  /** Workers whose investigation has not ended. */
  readonly active: ReadonlySet<string>;
  /** Every worker started in the run, so an assigned fact is never spawned twice. */
  readonly spawned: ReadonlySet<string>;
  /** The number the next re-delegated worker gets. */
  readonly nextWorker: number;
  /** USER_DIRECTIVE entries already read into STRATEGY. */
  readonly directivesRead: number;
  /** Whether an entry was accepted or a worker ended since the evaluation began. */
  readonly dirty: boolean;
}

/** The run's settings that scheduling decides by, and how a worker number becomes a worker id. */
export interface SchedulingOptions {
  question: string;
  maxWorkers: number;
  maxAttemptsPerFact: number;
  workerId: (n: number) => string;
}

/** A worker to start on one fact. */
export interface WorkerStart {
  entity: string;
  field: string;
  workerId: string;
  /** True when the supervisor wrote PENDING for it (a re-delegation); false for STRATEGY's assigned worker. */
  delegated: boolean;
  /** Workers that have held the fact, this one included. */
  attempt: number;
  searchHint?: string;
  /** The new search query after a tombstone, as the PENDING entry records it. */
  searchQuery?: string;
}

/** One decision of an evaluation, in the order the supervisor carries them out. */
export type SchedulingStep =
  /** Append the revised STRATEGY, count the directives read, and forward their texts to the workers running. */
  | {
      kind: 'revise';
      draft: { type: 'STRATEGY'; body: EntryBody<'STRATEGY'> };
      directivesRead: number;
      texts: string[];
    }
  /** Append the TOMBSTONE: investigations ask the board before each fetch, so the URL is out of bounds at once. */
  | { kind: 'tombstone'; draft: { type: 'TOMBSTONE'; body: EntryBody<'TOMBSTONE'> } }
  /** Start the worker STRATEGY assigned to the fact. */
  | { kind: 'spawn'; worker: WorkerStart }
  /** Take the next worker number, append the PENDING entry for the new worker, then start it. */
  | {
      kind: 'delegate';
      nextWorker: number;
      draft: { type: 'PENDING'; body: EntryBody<'PENDING'> };
      worker: WorkerStart;
    }
  /** End the run: with its SYNTHESIS appended first when complete. */
  | { kind: 'finish'; outcome: 'complete'; synthesis: { type: 'SYNTHESIS'; body: EntryBody<'SYNTHESIS'> } }
  | { kind: 'finish'; outcome: 'incomplete' };

/** The search hint on a re-delegated PENDING entry once the sources tried are tombstoned. */
export const TOMBSTONED_SEARCH_HINT = 'new search: the sources tried are tombstoned';

/**
 * The supervisor's evaluation, one decision at a time: directives read into STRATEGY, failed URLs tombstoned,
 * a worker started or re-delegated per open fact, then synthesis or `incomplete`. The caller carries out each step
 * before taking the next, and the view is read afresh each time: starting a worker waits on the server, and while
 * it waits other workers write and end, which changes the places free and the board.
 */
export function* evaluationSteps(view: SchedulingView, options: SchedulingOptions): Generator<SchedulingStep, void> {
  const directives = view.entries.filter((entry) => entry.type === 'USER_DIRECTIVE') as EntryOf<'USER_DIRECTIVE'>[];
  const unread = directives.slice(view.directivesRead);
  const strategy = latestStrategy(view.entries);
  if (unread.length > 0 && strategy) {
    // A revision lists a directive once; more than a STRATEGY may list wait for the next evaluation.
    const texts = unread.slice(0, BOARD_LIMITS.list).map((entry) => entry.body.text);
    const body = reviseStrategy(strategy.body, texts);
    yield {
      kind: 'revise',
      draft: { type: 'STRATEGY', body },
      directivesRead: view.directivesRead + texts.length,
      texts,
    };
  }
  for (const fact of facts(view.entries)) {
    if (fact.latest?.type !== 'FAILED_URL') continue;
    const { url, failureReason } = fact.latest.body;
    const body = { entity: fact.entity, field: fact.field, url, failureReason, permanent: true as const };
    yield { kind: 'tombstone', draft: { type: 'TOMBSTONE', body } };
  }
  let stalled = 0;
  // Each fact is decided once, by its state when this loop began; the strategy, its holders and the free places are
  // read as they stand at its turn.
  for (const fact of facts(view.entries)) {
    if (fact.state === 'VERIFIED') continue;
    if (fact.latest?.type === 'PENDING') {
      // A holder that ended without writing (its writes kept failing) leaves the fact stuck: missing at the end.
      if (!view.active.has(fact.latest.body.assignedTo)) stalled += 1;
      continue;
    }
    const holders = assigneesOf(view.entries, fact.entity, fact.field);
    const assigned = latestStrategy(view.entries)?.body.assigned.find(
      (a) => a.entity === fact.entity && a.field === fact.field,
    );
    if (fact.state === 'ASSIGNED' && assigned && view.spawned.has(assigned.worker)) continue;
    if (holders.length >= options.maxAttemptsPerFact && fact.state !== 'ASSIGNED') {
      stalled += 1;
      continue;
    }
    // No place for another worker: the evaluation stops here, and the next one (a worker ending wakes it) goes on.
    if (view.active.size >= options.maxWorkers) return;
    const { entity, field } = fact;
    if (fact.state === 'ASSIGNED' && assigned) {
      yield {
        kind: 'spawn',
        worker: { entity, field, workerId: assigned.worker, delegated: false, attempt: holders.length },
      };
      continue;
    }
    const workerId = options.workerId(view.nextWorker);
    const tombstoned = fact.state === 'TOMBSTONE' && tombstonedUrls(view.entries).length > 0;
    const search = tombstoned
      ? { searchHint: TOMBSTONED_SEARCH_HINT, searchQuery: tombstoneQuery(view.entries, entity, field) }
      : {};
    yield {
      kind: 'delegate',
      nextWorker: view.nextWorker + 1,
      draft: { type: 'PENDING', body: { entity, field, assignedTo: workerId, ...search } },
      worker: { entity, field, workerId, delegated: true, attempt: holders.length + 1, ...search },
    };
  }
  const all = facts(view.entries);
  if (all.length > 0 && all.every((fact) => fact.state === 'VERIFIED')) {
    const body = composeAnswer(options.question, view.entries);
    yield { kind: 'finish', outcome: 'complete', synthesis: { type: 'SYNTHESIS', body } };
  } else if (view.active.size === 0 && !view.dirty && stalled > 0) {
    yield { kind: 'finish', outcome: 'incomplete' };
  }
}

/** What carries out a step: the supervisor's run, or the copy `planEvaluation` keeps. */
export interface StepTarget {
  append(draft: Draft): void;
  readDirectives(count: number): void;
  takeWorkerNumbers(next: number): void;
  /** Starts a worker; the supervisor waits for the child to start before its next decision. */
  start(worker: WorkerStart): Promise<void> | void;
  /** Tells the workers running of directives just read; the supervisor waits for the signals to be sent. */
  forwardDirectives?(texts: readonly string[]): Promise<void> | void;
  finish(outcome: 'complete' | 'incomplete'): void;
}

/**
 * Carries out one step, in the order the decisions assume: the entry first, then the worker. Returns the start's
 * promise when a worker starts, so a caller awaits only then.
 */
export function applyStep(step: SchedulingStep, target: StepTarget): Promise<void> | void {
  switch (step.kind) {
    case 'revise':
      target.append(step.draft);
      target.readDirectives(step.directivesRead);
      return target.forwardDirectives?.(step.texts);
    case 'tombstone':
      target.append(step.draft);
      return;
    case 'delegate':
      target.takeWorkerNumbers(step.nextWorker);
      target.append(step.draft);
      return target.start(step.worker);
    case 'spawn':
      return target.start(step.worker);
    case 'finish':
      if (step.outcome === 'complete') target.append(step.synthesis);
      target.finish(step.outcome);
  }
}

/** A run's state as `planEvaluation` takes it: a view at the start of an evaluation, when nothing has changed yet. */
export type SchedulingState = Omit<SchedulingView, 'dirty'>;

/**
 * Every step of one evaluation of `state`, supposing nothing else happens meanwhile (no worker writes or ends while
 * one starts): the steps are carried out on a copy, as the supervisor would, and `state` is left unchanged.
 */
export function planEvaluation(state: SchedulingState, options: SchedulingOptions): SchedulingStep[] {
  const entries = [...state.entries];
  const active = new Set(state.active);
  const spawned = new Set(state.spawned);
  const view = {
    entries,
    active,
    spawned,
    nextWorker: state.nextWorker,
    directivesRead: state.directivesRead,
    dirty: false,
  };
  const copy: StepTarget = {
    append(draft) {
      // Ids, turns and times are the workflow's to give; no decision reads them.
      const author = { role: 'supervisor', id: 'supervisor' };
      entries.push({
        id: `e${entries.length + 1}`,
        type: draft.type,
        author,
        turn: 0,
        createdAt: '',
        body: draft.body,
      } as BoardEntry);
      view.dirty = true;
    },
    readDirectives: (count) => void (view.directivesRead = count),
    takeWorkerNumbers: (next) => void (view.nextWorker = next),
    start(worker) {
      active.add(worker.workerId);
      spawned.add(worker.workerId);
    },
    finish: () => undefined,
  };
  const steps: SchedulingStep[] = [];
  for (const step of evaluationSteps(view, options)) {
    steps.push(step);
    void applyStep(step, copy);
  }
  return steps;
}
