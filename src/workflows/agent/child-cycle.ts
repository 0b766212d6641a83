import { type ChildWorkflowHandle, ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { AgentSettings } from '../../core/agent/agent';
import type { CycleInput, CycleResult, Trigger } from '../../core/cycle/input';
import { ZERO_USAGE } from '../../core/cycle/model';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { directiveSignal } from '../../common/messages/agent';
import { failureMessage } from '../../common/failure';
import { agentIdKey } from '../../common/search-attributes';
import type { agentCycle } from '../agent-cycle';
import type { WorkItem } from './work-queue';

/** A cycle's input for one work item: the item's overrides win over the agent's settings. */
export function cycleInputFor(
  item: WorkItem,
  agent: { agentId: string; settings: AgentSettings; scratchpad: Scratchpad },
  cycleId: string,
  directives: string[],
): CycleInput & { cycleId: string; trigger: Trigger } {
  const { settings } = agent;
  return {
    agentId: agent.agentId,
    cycleId,
    before: agent.scratchpad,
    trigger: item.kind === 'chat' ? 'chat' : item.trigger,
    mode: item.kind,
    ...(item.kind === 'chat' ? { message: item.message } : {}),
    maxIterations: (item.kind === 'task' && item.maxIterations) || settings.maxIterations,
    ...(item.kind === 'task' && item.priorScratchpad ? { priorScratchpad: item.priorScratchpad } : {}),
    model: (item.kind === 'task' && item.model) || settings.model,
    reflectModel: settings.reflectModel,
    twoPhase: settings.twoPhase,
    budgetChars: settings.budgetChars,
    directives,
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
  private handle?: ChildWorkflowHandle<typeof agentCycle>;

  constructor(readonly input: CycleInput & { cycleId: string; trigger: Trigger }) {}

  get cycleId(): string {
    return this.input.cycleId;
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

  /** Runs the cycle to its result; one that fails outside its own fallback leaves the memory as it was. */
  async run(staticSummary: string): Promise<CycleResult> {
    const { agentId, cycleId, before } = this.input;
    try {
      // By name: the agent's own module graph stays without the cycle's (see workflows/index.ts).
      const handle = await startChild<typeof agentCycle>('agentCycle', {
        workflowId: cycleId,
        args: [this.input],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        typedSearchAttributes: [{ key: agentIdKey, value: agentId }],
        staticSummary,
      });
      this.handle = handle;
      for (const text of this.forwarded) void handle.signal(directiveSignal, text).catch(() => undefined);
      return await handle.result();
    } catch (error) {
      const message = failureMessage(error);
      const after = { ...before, notes: `Cycle ${cycleId} failed: ${message}` };
      return { agentId, cycleId, outcome: 'failed', after, iterations: 0, usage: ZERO_USAGE, error: message };
    }
  }
}
