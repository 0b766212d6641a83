import { ApplicationFailure } from '@temporalio/workflow';
import {
  type Author,
  type BoardEntry,
  type Draft,
  checkWrite,
  facts,
  latestStrategy,
  synthesisOf,
} from '../../core/research/board';
import { RESEARCH_BYTES } from '../../core/research/board-budget';
import { CapabilityTokens } from '../../core/research/capabilities';
import { DirectiveIntake } from '../../core/research/directives';
import { type RunNote, addNote } from '../../core/research/notes';
import {
  describeMissing,
  type MirrorStatus,
  type ParsedResearchInput,
  type ResearchHandover,
  type ResearchOutcome,
  type ResearchStatus,
  type ResearchUsage,
} from '../../core/research/run';
import { payloadBytes } from '../../core/payload';
import { totalCost } from '../../core/cycle/cost';
import { type Usage, mergeUsageByModel, totalUsage } from '../../core/cycle/model';
import { ResearchError } from '../../common/failure-types';
import type { WriteRequest } from '../../common/messages/research';
import { RefusedWrite, parseWriteRequest } from './write-request';
import { runStatus } from './run-status';
import { WorkerApprovals } from './approvals';
export { RefusedWrite };

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
  /** Entries the mirror holds: the first `mirrored` of `entries`. */
  mirrored = 0;
  /** Set by the mirror lane (mirror-lane.ts) when the run mirrors. */
  mirror?: Pick<MirrorStatus, 'state' | 'error'>;
  /** What the user should know beside the board: dropped directives, the mirror giving up. */
  notes: RunNote[];
  /** JSON bytes of `entries`, counted as they land: the board's size is checked on every directive and turn. */
  boardBytes: number;
  private readonly early: { author: Author; draft: Draft }[] = [];
  private readonly intake: DirectiveIntake;
  private userDirectives: number;
  /** Model usage by model: the supervisor's planning calls, and each worker's from the write that ended it. */
  usageByModel: Record<string, Usage>;
  private readonly usageCounted: Set<string>;
  /** The workers' capability tokens: a worker's write must present its own. */
  readonly tokens: CapabilityTokens;
  /** The calls running workers' cycles wait on for a person (approvals.ts). */
  readonly approvals: WorkerApprovals;

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
    this.mirrored = handover?.mirrored ?? handover?.entries.length ?? 0;
    this.supervisor = { role: 'supervisor', id: workflowId };
    this.usageByModel = { ...handover?.usageByModel };
    this.usageCounted = new Set(handover?.usageCounted);
    this.tokens = new CapabilityTokens(handover?.tokens);
    this.approvals = new WorkerApprovals(handover?.approvals);
    this.notes = [...(handover?.notes ?? [])];
    this.intake = new DirectiveIntake({ ids: handover?.directiveIds ?? [], times: handover?.directiveTimes ?? [] });
    this.boardBytes = payloadBytes(this.entries);
    this.userDirectives = this.entries.filter((entry) => entry.type === 'USER_DIRECTIVE').length;
  }

  /**
   * The `write` update's validator: parses the request (write-request.ts) and applies the board's rules, changing
   * nothing.
   */
  validate(request: WriteRequest): { author: Author; draft: Draft } {
    const write = parseWriteRequest(
      request,
      (id) => this.active.has(id),
      (id) => this.tokens.of(id),
    );
    this.check(write.author, write.draft);
    return write;
  }

  /**
   * A user directive, through the intake's caps (core/research/directives.ts): appended once STRATEGY is written,
   * held while the supervisor plans (it lands right after the first STRATEGY), or dropped with a note. A signal has
   * no caller to answer: a drop's note is returned for the worker's log.
   */
  directive(author: Author, draft: Draft, now: number, id?: string): RunNote | undefined {
    const planning = !this.strategy && this.outcome === 'running';
    const admission = this.intake.admit(id, {
      now,
      landed: this.userDirectives,
      held: this.early.length,
      planning,
      closed: this.outcome !== 'running' || synthesisOf(this.entries) !== undefined,
      full: this.boardBytes >= RESEARCH_BYTES.directiveRoom,
    });
    if (admission.kind === 'duplicate') return undefined;
    if (admission.kind === 'drop') return this.note(admission.key, admission.note);
    if (planning) {
      this.early.push({ author, draft });
      return undefined;
    }
    return this.land(author, draft, now);
  }

  /** Leaves `text` where the user looks (status, Web UI, result) under `key`; returns the note, counted. */
  note(key: string, text: string): RunNote {
    this.notes = addNote(this.notes, key, text);
    return this.notes.at(-1) as RunNote;
  }

  private land(author: Author, draft: Draft, now: number): RunNote | undefined {
    const verdict = checkWrite(this.entries, author, draft);
    if (!verdict.ok) return this.note('directive:refused', `a directive was refused: ${verdict.reason}`);
    this.append(author, draft, now);
    return undefined;
  }

  /**
   * A validated write. A worker's usage rides the write that ends its investigation and counts once per worker,
   * whatever generation of the run takes it.
   */
  appendWrite(write: { author: Author; draft: Draft }, request: WriteRequest, now: number): BoardEntry {
    const entry = this.append(write.author, write.draft, now);
    const { role, id } = write.author;
    if (request.usageByModel && role === 'worker' && write.draft.type !== 'PENDING' && !this.usageCounted.has(id)) {
      this.usageCounted.add(id);
      this.usageByModel = mergeUsageByModel(this.usageByModel, request.usageByModel);
    }
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
    this.boardBytes += payloadBytes(entry) + 1;
    if (draft.type === 'USER_DIRECTIVE') this.userDirectives += 1;
    // Worker numbers named by STRATEGY's assignments are taken; later workers (re-delegations) count on from there.
    if (draft.type === 'STRATEGY') this.nextWorker = Math.max(this.nextWorker, draft.body.assigned.length + 1);
    if (draft.type === 'STRATEGY') for (const held of this.early.splice(0)) this.land(held.author, held.draft, now);
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

  /** The `status` answer (run-status.ts). */
  status(): ResearchStatus {
    return runStatus(this);
  }

  handover(): ResearchHandover {
    const intake = this.intake.memory();
    const tokens = this.tokens.handover(this.active);
    return {
      entries: this.entries,
      nextWorker: this.nextWorker,
      startedAt: this.startedAt,
      directivesRead: this.directivesRead,
      activeWorkers: [...this.active],
      spawned: [...this.spawned],
      generation: this.generation + 1,
      usageByModel: this.usageByModel,
      usageCounted: [...this.usageCounted],
      mirrored: this.mirrored,
      notes: this.notes,
      directiveIds: intake.ids,
      directiveTimes: intake.times,
      ...(tokens && { tokens }),
      ...this.approvals.handover(this.active),
    };
  }
}
