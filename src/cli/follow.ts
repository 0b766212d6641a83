import type { Client } from '@temporalio/client';
import { progressSteps } from '../clients/cycle-progress';
import { pause } from '../clients/history-stream';
import { agentWorkflowId } from '../common/ids';
import { type Closed, type FollowOptions, ProgressPrinter, followCycle, showStep } from './progress';

/** Where an agent's history stood before a command asked it for work: the cycles it starts later are followed. */
export interface AgentMark {
  runId?: string;
  /** The history length of a running agent; undefined when no run was open (the work starts a new one). */
  historyLength?: number;
}

/** The agent's mark now (see {@link AgentMark}), from `describe`: no worker needed. */
export async function agentMark(client: Client, agentId: string): Promise<AgentMark> {
  try {
    const description = await client.workflow.getHandle(agentWorkflowId(agentId)).describe();
    const running = description.status.name === 'RUNNING';
    return { runId: description.runId, ...(running ? { historyLength: description.historyLength } : {}) };
  } catch {
    return {};
  }
}

/**
 * Follows the cycles an agent starts after `mark`, one at a time, printing each (see {@link followCycle}), until
 * {@link finish} or {@link stop}. Started before the command's own request, so no cycle is missed.
 */
export class AgentFollower {
  /** Followed cycles and how each closed, in the order they ran. */
  readonly followed = new Map<string, Closed | undefined>();
  readonly done: Promise<void>;
  private readonly abort = new AbortController();
  private target?: string;
  /** The cycle being followed now. */
  private current?: string;

  constructor(
    private readonly client: Client,
    private readonly agentId: string,
    mark: AgentMark,
    private readonly options: FollowOptions & { onCycle?: (cycleId: string, closed?: Closed) => void } = {},
  ) {
    options.signal?.addEventListener('abort', () => this.abort.abort(), { once: true });
    this.done = this.run(mark).catch((error: unknown) => {
      // Progress is a courtesy: a history that cannot be read leaves the command's own outcome to speak.
      if (!this.abort.signal.aborted) new ProgressPrinter(options).line(`(progress unavailable: ${String(error)})`);
    });
  }

  /**
   * Stops once `cycleId` has been followed to its end, waiting at most `graceMs` for that, or `unseenMs` when it has
   * not even started (a cycle that could not start never shows).
   */
  async finish(cycleId: string, graceMs = 10_000, unseenMs = 2_000): Promise<void> {
    this.target = cycleId;
    const since = Date.now();
    let ended = false;
    void this.done.then(() => (ended = true));
    while (!ended && !this.followed.has(cycleId)) {
      const waited = Date.now() - since;
      // Between cycles and still not at this one: it never started, or the stream is about to reach it.
      const between = this.current === undefined || this.followed.has(this.current);
      if (waited > graceMs || (between && waited > unseenMs)) break;
      await pause(50, this.abort.signal);
    }
    this.stop();
    await this.done;
  }

  stop(): void {
    this.abort.abort();
  }

  private async run(mark: AgentMark): Promise<void> {
    const signal = this.abort.signal;
    const start = await this.startOf(mark);
    if (!start) return;
    const workflowId = agentWorkflowId(this.agentId);
    for await (const step of progressSteps(this.client, workflowId, { ...start, followRuns: true, signal })) {
      if (step.kind !== 'child-started' || step.type !== 'agentCycle') continue;
      this.current = step.workflowId;
      const closed = await followCycle(this.client, step.workflowId, { ...this.options, signal });
      if (signal.aborted) return;
      this.followed.set(step.workflowId, closed);
      this.options.onCycle?.(step.workflowId, closed);
      if (this.target !== undefined && this.followed.has(this.target)) return;
    }
  }

  /** A running agent's history after the mark; otherwise the first new run, once the work has started it. */
  private async startOf(mark: AgentMark): Promise<{ runId: string; afterEventId: number } | undefined> {
    if (mark.runId && mark.historyLength !== undefined) return { runId: mark.runId, afterEventId: mark.historyLength };
    while (!this.abort.signal.aborted) {
      const now = await agentMark(this.client, this.agentId);
      if (now.runId && now.runId !== mark.runId) return { runId: now.runId, afterEventId: 0 };
      await pause(100, this.abort.signal);
    }
    return undefined;
  }
}

/**
 * Follows a staged run as it runs: its planning call, each stage's cycle (nested, as {@link followCycle} shows it)
 * and each verification. Resolves when the run closes or `signal` aborts.
 */
export async function followStaged(client: Client, stagedId: string, options: FollowOptions = {}): Promise<void> {
  const printer = new ProgressPrinter(options);
  const indent = options.indent ?? '';
  try {
    for await (const step of progressSteps(client, stagedId, options)) {
      if (step.kind === 'closed') return;
      if (step.kind === 'child-started') {
        const label = `stage ${step.workflowId.slice(stagedId.length + 1)}`;
        printer.stopWaiting();
        await followCycle(client, step.workflowId, { ...options, label, indent: `${indent}  ` });
        continue;
      }
      if (step.kind === 'child-ended') continue;
      if (step.kind === 'model-started') {
        printer.wait(`${indent}  planning (model call ${step.call})`);
        continue;
      }
      showStep(printer, step, `${indent}  `, stagedId);
    }
  } finally {
    printer.stopWaiting();
  }
}
