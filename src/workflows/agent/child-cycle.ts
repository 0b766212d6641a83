import { CancellationScope, type ChildWorkflowHandle, isCancellation } from '@temporalio/workflow';
import { type AgentSettings, type CycleRecord, cacheTtlInput } from '../../core/agent/agent';
import type { CycleInput, CycleResult, Trigger } from '../../core/cycle/input';
import { ZERO_USAGE } from '../../core/cycle/model';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { directiveSignal } from '../../common/messages/agent';
import { failureMessage } from '../../common/failure';
import type { AgentCycleWorkflow } from '../../common/workflow-types';
import { startCycleChild } from '../cycle/start-cycle-child';
import { approvalInputOf } from '../../core/tools/approval-policy';
import type { WorkItem } from './work-queue';

/** A cycle's input for one work item: the item's overrides win over the agent's settings. */
export function cycleInputFor(
  item: WorkItem,
  agent: { agentId: string; settings: AgentSettings; scratchpad: Scratchpad },
  cycleId: string,
  directives: string[],
): CycleInput & { cycleId: string; trigger: Trigger } {
  const { settings } = agent;
  const common = {
    agentId: agent.agentId,
    cycleId,
    before: agent.scratchpad,
    budgetChars: settings.budgetChars,
    directives,
    ...(settings.tools ? { tools: settings.tools } : {}),
    ...approvalInputOf(settings),
    ...cacheTtlInput(settings, item.kind === 'chat' ? 'chat' : item.trigger),
    ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    ...(settings.heartbeatTimeoutMs ? { heartbeatTimeoutMs: settings.heartbeatTimeoutMs } : {}),
  };
  if (item.kind === 'chat') {
    const { maxIterations, reflectModel, twoPhase } = settings;
    return {
      kind: 'chat',
      ...common,
      trigger: 'chat',
      message: item.message,
      maxIterations,
      model: item.model || settings.model,
      reflectModel,
      twoPhase,
    };
  }
  return {
    kind: 'task',
    ...common,
    trigger: item.trigger,
    maxIterations: item.maxIterations || settings.maxIterations,
    ...(item.priorScratchpad ? { priorScratchpad: item.priorScratchpad } : {}),
    model: item.model || settings.model,
    ...(item.tools !== undefined ? { tools: item.tools } : {}),
  };
}

/** The Web UI's one-line summary of a cycle. */
export function summaryOf(item: WorkItem, state: Scratchpad): string {
  const text = item.kind === 'chat' ? `chat: ${item.message}` : `${item.trigger}: ${state.current_task ?? 'no task'}`;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** One child `agentCycle` of the agent, and the directives signalled to it while it runs. */
export class ChildCycle {
  /** Directives received while this cycle ran, in order. */
  readonly forwarded: string[] = [];
  private handle?: ChildWorkflowHandle<AgentCycleWorkflow>;
  private readonly scope = new CancellationScope();
  private cancelRequested = false;
  private settle: (record: CycleRecord) => void = () => undefined;
  /** The cycle as the agent recorded it, once it has (see {@link recorded}). */
  readonly ended = new Promise<CycleRecord>((resolve) => (this.settle = resolve));

  constructor(readonly input: CycleInput & { cycleId: string; trigger: Trigger }) {}

  get cycleId(): string {
    return this.input.cycleId;
  }

  /** Directives given to this cycle: at its start, then forwarded while it runs. */
  get given(): string[] {
    return [...(this.input.directives ?? []), ...this.forwarded];
  }

  get trigger(): Trigger {
    return this.input.trigger;
  }

  /**
   * Sent without awaiting: the cycle shows it at its next iteration. Before the child has started,
   * it is sent as soon as the handle exists.
   */
  forward(text: string): void {
    this.forwarded.push(text);
    if (this.handle) void this.handle.signal(directiveSignal, text).catch(() => undefined);
  }

  /**
   * Asks the cycle to stop: its child workflow is cancelled (ending CANCELLED once its running activities are told),
   * and {@link run} resolves `'cancelled'` when it has.
   */
  cancel(): void {
    this.cancelRequested = true;
    this.scope.cancel();
  }

  /** Hands the agent's record of this cycle to whoever waits on {@link ended}. */
  recorded(record: CycleRecord): void {
    this.settle(record);
  }

  /**
   * Runs the cycle to its result; one that fails outside its own fallback leaves the memory as it was, and one
   * cancelled (see {@link cancel}) is `'cancelled'`. In a scope of its own, so cancelling it touches nothing else.
   */
  async run(summary: string): Promise<CycleResult | 'cancelled'> {
    const { agentId, cycleId, before } = this.input;
    try {
      return await this.scope.run(async () => {
        const handle = await startCycleChild(this.input, summary);
        this.handle = handle;
        for (const text of this.forwarded) void handle.signal(directiveSignal, text).catch(() => undefined);
        return await handle.result();
      });
    } catch (error) {
      if (this.cancelRequested && isCancellation(error)) return 'cancelled';
      const message = failureMessage(error);
      const after = { ...before, notes: `Cycle ${cycleId} failed: ${message}` };
      return { agentId, cycleId, outcome: 'failed', after, iterations: 0, usage: ZERO_USAGE, error: message };
    }
  }
}
