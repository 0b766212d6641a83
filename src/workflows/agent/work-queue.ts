import { condition } from '@temporalio/workflow';
import type { CycleRecord } from '../../core/agent/agent';
import type { Trigger } from '../../core/cycle/input';

/** Work for one cycle: a chat turn, or a task cycle with optional overrides. */
export type Work =
  | { kind: 'chat'; message: string }
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
  private readonly awaited = new Set<number>();
  private nextId = 1;

  get length(): number {
    return this.items.length;
  }

  /** Queues work someone waits for (an update); resolves once it has run. */
  async submit(work: Work): Promise<Finished> {
    const id = this.nextId++;
    this.awaited.add(id);
    this.items.push({ ...work, id });
    await condition(() => this.finished.has(id));
    this.awaited.delete(id);
    const result = this.finished.get(id) as Finished;
    this.finished.delete(id);
    return result;
  }

  /** Queues a task cycle nobody waits for, unless a task cycle is already queued. */
  wake(trigger: Trigger): void {
    if (!this.items.some((item) => item.kind === 'task')) this.items.push({ id: this.nextId++, kind: 'task', trigger });
  }

  /** The oldest item, taken off the queue. */
  next(): WorkItem | undefined {
    return this.items.shift();
  }

  /** Hands the result of an item to whoever waits for it. */
  finish(item: WorkItem, result: Finished): void {
    if (this.awaited.has(item.id)) this.finished.set(item.id, result);
  }

  /** Only wakes can be handed over to the next run; work someone awaits (send, runCycle) is done in this run. */
  canHandOver(): boolean {
    return this.items.every((item) => item.kind === 'task' && !this.awaited.has(item.id));
  }
}
