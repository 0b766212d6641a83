import { ApplicationFailure } from '@temporalio/workflow';
import {
  type Author,
  type BoardEntry,
  type Draft,
  DraftSchema,
  AuthorSchema,
  checkWrite,
  facts,
  latestStrategy,
} from '../../core/research/board';
import {
  describeMissing,
  type ParsedResearchInput,
  type ResearchHandover,
  type ResearchOutcome,
  type ResearchStatus,
  type ResearchUsage,
} from '../../core/research/run';
import { totalCost } from '../../core/cycle/cost';
import { type Usage, UsageByModelSchema, mergeUsageByModel, totalUsage } from '../../core/cycle/model';
import { ResearchError } from '../../common/failure-types';
import type { WriteRequest } from '../../common/messages/research';

/** A refused write: the update fails with this, and the board is unchanged. */
export class RefusedWrite extends Error {
  override readonly name = 'RefusedWrite';
}

/**
 * The supervisor's state: the append-only board, the workers running, and the outcome. Updates, signals and the
 * evaluation loop all go through `append`, which applies `core/board` rules to every entry, its own included.
 */
export class ResearchRun {
  readonly entries: BoardEntry[];
  readonly active: Set<string>;
  /** Every worker started, so an assigned fact is never spawned twice. */
  readonly spawned: Set<string>;
  nextWorker: number;
  directivesRead: number;
  readonly startedAt: number;
  readonly generation: number;
  outcome: ResearchOutcome = 'running';
  missing: string[] = [];
  /** Set by every accepted entry and finished worker; the evaluation loop waits on it. */
  dirty = true;
  turn = 0;
  readonly supervisor: Author;
  /** Entries accepted since the mirror last caught up. */
  mirrored = 0;
  private readonly early: { author: Author; draft: Draft }[] = [];
  /** Model usage by model: the supervisor's planning calls, and each worker's from the write that ended it. */
  usageByModel: Record<string, Usage>;

  constructor(
    readonly input: ParsedResearchInput,
    readonly workflowId: string,
    now: number,
    handover?: ResearchHandover,
  ) {
    this.entries = handover ? [...handover.entries] : [];
    this.active = new Set(handover?.activeWorkers ?? []);
    this.spawned = new Set(handover?.spawned ?? []);
    this.nextWorker = handover?.nextWorker ?? 1;
    this.directivesRead = handover?.directivesRead ?? 0;
    this.startedAt = handover?.startedAt ?? now;
    this.generation = handover?.generation ?? 0;
    this.mirrored = handover?.entries.length ?? 0;
    this.supervisor = { role: 'supervisor', id: workflowId };
    this.usageByModel = { ...handover?.usageByModel };
  }

  /**
   * The `write` update's validator: parses the request and applies the board's rules. The supervisor's own entries
   * never come through here, so a request claiming its role is forged.
   */
  validate(request: WriteRequest): { author: Author; draft: Draft } {
    const author = AuthorSchema().safeParse(request?.author);
    if (!author.success) throw new RefusedWrite(`invalid author: ${author.error.issues[0]?.message ?? 'malformed'}`);
    const type = String((request.draft as { type?: unknown } | undefined)?.type).slice(0, 40);
    const { role, id } = author.data;
    if (role === 'supervisor') {
      throw new RefusedWrite(
        `supervisor ${id} may not write ${type}: [origin] the supervisor writes only from inside its run`,
      );
    }
    if (role === 'worker' && !this.active.has(id)) {
      throw new RefusedWrite(`worker ${id} may not write ${type}: [origin] not a running worker of this run`);
    }
    const draft = DraftSchema().safeParse(request.draft);
    if (!draft.success) {
      const issue = draft.error.issues[0];
      throw new RefusedWrite(`invalid ${type} entry: ${issue?.path.join('.')} ${issue?.message ?? ''}`.trim());
    }
    const usage = request.usageByModel;
    if (usage !== undefined && (role !== 'worker' || !UsageByModelSchema().safeParse(usage).success)) {
      throw new RefusedWrite(`invalid usage on a ${role}'s ${type} write: only a worker reports usage, by model`);
    }
    this.check(author.data, draft.data as Draft);
    return { author: author.data, draft: draft.data as Draft };
  }

  /**
   * A user directive. One that arrives before the first STRATEGY (while the supervisor plans) waits and lands right
   * after it; a signal has no caller to answer, so a late one is dropped and the run goes on. Blank or malformed
   * ones never get here: the signal is read by `receiveDirective` (research-input.ts).
   */
  directive(author: Author, draft: Draft, now: number): void {
    if (!this.strategy && this.outcome === 'running') {
      this.early.push({ author, draft });
      return;
    }
    try {
      this.check(author, draft);
      this.append(author, draft, now);
    } catch {
      // Refused by the board's rules (a closed run): nothing to append.
    }
  }

  /** A validated write; a worker's usage counts once its entry is accepted (it comes with its last write). */
  appendWrite(write: { author: Author; draft: Draft }, request: WriteRequest, now: number): BoardEntry {
    const entry = this.append(write.author, write.draft, now);
    if (request.usageByModel) this.usageByModel = mergeUsageByModel(this.usageByModel, request.usageByModel);
    return entry;
  }

  countUsage(model: string, usage: Usage): void {
    this.usageByModel = mergeUsageByModel(this.usageByModel, { [model]: usage });
  }

  get usage(): ResearchUsage {
    return {
      usage: totalUsage(this.usageByModel),
      usageByModel: { ...this.usageByModel },
      costUsd: totalCost(this.usageByModel),
    };
  }

  check(author: Author, draft: Draft): void {
    const verdict = checkWrite(this.entries, author, draft);
    if (!verdict.ok) throw new RefusedWrite(verdict.reason);
  }

  /** Appends an entry that passes the rules as the board stands now; throws a non-retryable failure otherwise. */
  append(author: Author, draft: Draft, now: number): BoardEntry {
    const verdict = checkWrite(this.entries, author, draft);
    if (!verdict.ok) throw ApplicationFailure.nonRetryable(verdict.reason, ResearchError.RefusedWrite);
    const entry = {
      id: `e${this.entries.length + 1}`,
      type: draft.type,
      author,
      turn: this.turn,
      createdAt: new Date(now).toISOString(),
      body: draft.body,
    } as BoardEntry;
    this.entries.push(entry);
    // Worker numbers named by STRATEGY's assignments are taken; later workers (re-delegations) count on from there.
    if (draft.type === 'STRATEGY') this.nextWorker = Math.max(this.nextWorker, draft.body.assigned.length + 1);
    if (draft.type === 'STRATEGY')
      for (const held of this.early.splice(0)) this.directive(held.author, held.draft, now);
    // A worker's result ends its investigation; a claim does not.
    if (author.role === 'worker' && draft.type !== 'PENDING') this.active.delete(author.id);
    this.dirty = true;
    return entry;
  }

  appendAsSupervisor(draft: Draft, now: number): BoardEntry {
    return this.append(this.supervisor, draft, now);
  }

  workerFinished(workerId: string): void {
    this.active.delete(workerId);
    this.dirty = true;
  }

  get strategy() {
    return latestStrategy(this.entries);
  }

  finish(outcome: Exclude<ResearchOutcome, 'running'>): void {
    this.outcome = outcome;
    this.missing = describeMissing(facts(this.entries));
  }

  status(): ResearchStatus {
    return {
      runId: this.input.runId,
      outcome: this.outcome,
      facts: facts(this.entries).map((fact) => ({
        entity: fact.entity,
        field: fact.field,
        state: fact.state,
        ...(fact.latest && { entryId: fact.latest.id }),
      })),
      activeWorkers: [...this.active],
      workersStarted: this.spawned.size,
      entries: this.entries.length,
      missing: this.outcome === 'running' ? describeMissing(facts(this.entries)) : this.missing,
      usage: this.usage,
    };
  }

  handover(): ResearchHandover {
    return {
      entries: this.entries,
      nextWorker: this.nextWorker,
      startedAt: this.startedAt,
      directivesRead: this.directivesRead,
      activeWorkers: [...this.active],
      spawned: [...this.spawned],
      generation: this.generation + 1,
      usageByModel: this.usageByModel,
    };
  }
}
