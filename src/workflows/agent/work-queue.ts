import { condition } from '@temporalio/workflow';
import type { CycleRecord, SendResult } from '../../core/agent/agent';
import type { ReplyArgs } from '../../core/agent/reply';
import type { Trigger } from '../../core/cycle/input';

/** Work for one cycle: a chat turn, or a task cycle with optional overrides. */
export type Work =
  | { kind: 'chat'; message: string; model?: string; stream?: boolean }
  | {
      kind: 'task';
      trigger: Trigger;
      maxIterations?: number;
      model?: string;
      tools?: string[];
      priorScratchpad?: string;
    };
export type WorkItem = Work & { id: number };

/** A finished cycle as the one who asked for it sees it. */
export interface Finished {
  record: CycleRecord;
  reply?: string;
}

/** The agent's cycles waiting to run, one at a time, and the answers owed to those who wait for them. */
export class WorkQueue {
  private readonly items: WorkItem[] = [];
  private readonly finished = new Map<number, Finished>();
  private readonly replies = new Map<number, ReplyArgs>();
  private readonly awaited = new Set<number>();
  /** Streamed turns not started yet, and the cycle ids of those started, until their `startTurn` has answered. */
  private readonly starting = new Set<number>();
  private readonly cycleIds = new Map<number, string>();
  private running: WorkItem | undefined;
  private nextId = 1;

  get length(): number {
    return this.items.length;
  }

  /** Queues work someone waits for (an update); resolves once it has run. */
  async submit(work: Work): Promise<Finished> {
    const id = this.push(work);
    await condition(() => this.finished.has(id));
    return this.take(id).finished as Finished;
  }

  /**
   * Queues a chat turn; resolves with its reply as soon as its cycle sends it ({@link reply}), or once the cycle has
   * ended (a cycle that sends none: single-phase, a failed respond, a reply past the payload budget).
   */
  async ask(message: string, model?: string): Promise<SendResult> {
    const id = this.push({ kind: 'chat', message, ...(model ? { model } : {}) });
    await condition(() => this.finished.has(id) || this.replies.has(id));
    const { finished, reply } = this.take(id);
    if (reply) return { reply: reply.reply, cycleId: reply.cycleId, outcome: reply.outcome };
    const { cycleId, outcome, error } = (finished as Finished).record;
    return { reply: finished?.reply ?? '', cycleId, outcome, ...(error ? { error } : {}) };
  }

  /** Queues a streamed chat turn; resolves with its cycle id once it has started. Its reply is read from its stream. */
  async begin(message: string, model?: string): Promise<string> {
    const id = this.nextId++;
    this.starting.add(id);
    this.items.push({ id, kind: 'chat', message, ...(model ? { model } : {}), stream: true });
    await condition(() => this.cycleIds.has(id));
    const cycleId = this.cycleIds.get(id) as string;
    this.cycleIds.delete(id);
    return cycleId;
  }

  /** The item's cycle has started, as `cycleId`. */
  started(item: WorkItem, cycleId: string): void {
    if (this.starting.delete(item.id)) this.cycleIds.set(item.id, cycleId);
  }

  /** The reply of the chat turn that runs now, for whoever waits for it; the cycle still runs (reflect). */
  reply(args: ReplyArgs): void {
    const item = this.running;
    if (item?.kind === 'chat' && this.awaited.has(item.id)) this.replies.set(item.id, args);
  }

  private push(work: Work): number {
    const id = this.nextId++;
    this.awaited.add(id);
    this.items.push({ ...work, id });
    return id;
  }

  private take(id: number): { finished?: Finished; reply?: ReplyArgs } {
    this.awaited.delete(id);
    const taken = { finished: this.finished.get(id), reply: this.replies.get(id) };
    this.finished.delete(id);
    this.replies.delete(id);
    return taken;
  }

  /** Queues a task cycle nobody waits for, unless a task cycle is already queued. */
  wake(trigger: Trigger): void {
    if (!this.items.some((item) => item.kind === 'task')) this.items.push({ id: this.nextId++, kind: 'task', trigger });
  }

  /** The oldest item, taken off the queue: it runs until {@link finish}. */
  next(): WorkItem | undefined {
    return (this.running = this.items.shift());
  }

  /** Hands the result of an item to whoever still waits for it (one answered by its reply does not). */
  finish(item: WorkItem, result: Finished): void {
    if (this.running === item) this.running = undefined;
    if (this.awaited.has(item.id)) this.finished.set(item.id, result);
  }

  /** Only wakes can be handed over to the next run; work someone awaits (send, runCycle) is done in this run. */
  canHandOver(): boolean {
    return this.cycleIds.size === 0 && this.items.every((item) => item.kind === 'task' && !this.awaited.has(item.id));
  }
}
