import { type AgentSettings, type CycleRecord, cacheTtlInput } from '../../core/agent/agent';
import type { AgentCycleInput } from '../../core/agent/cycle-input';
import type { CycleResult, Trigger } from '../../core/cycle/input';
import { ZERO_USAGE } from '../../core/cycle/model';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import type { ApprovalWait } from '../../core/tools/approval';
import { headCodePoints } from '../../core/text';
import { approvalInputOf } from '../../core/tools/approval-policy';
import { ChildCycle } from '../cycle/child-cycle';
import { type CycleDescription, QUOTE_POINTS } from '../cycle/cycle-details';
import type { WorkItem } from './work-queue';

/** An agent cycle's input as its starter gives it: with its id and trigger. */
export type AgentCycleStart = AgentCycleInput & { cycleId: string; trigger: Trigger };

/** A cycle's input for one work item: the item's overrides win over the agent's settings. */
export function cycleInputFor(
  item: WorkItem,
  agent: { agentId: string; settings: AgentSettings; scratchpad: Scratchpad },
  cycleId: string,
  directives: string[],
): AgentCycleStart {
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
      ...(item.stream && { stream: true }),
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

/** What an agent's cycle is, for the Web UI: a task cycle, or a chat turn with its message. */
export function agentCycleDescription(input: AgentCycleInput): CycleDescription {
  if (input.kind !== 'chat') return { name: 'task cycle' };
  return { name: 'chat turn', lead: [`### Message\n${headCodePoints(input.message, QUOTE_POINTS)}`] };
}

/** The agent's running cycle: a child `agentCycle`, the directives it was given, and its record once kept. */
export class RunningCycle {
  private readonly child: ChildCycle<AgentCycleInput>;
  private settle: (record: CycleRecord) => void = () => undefined;
  /** The cycle as the agent recorded it, once it has (see {@link recorded}). */
  readonly ended = new Promise<CycleRecord>((resolve) => (this.settle = resolve));

  constructor(
    readonly input: AgentCycleStart,
    summary: string,
    approvalWaits: (wait: ApprovalWait) => void,
  ) {
    const description = agentCycleDescription(input);
    this.child = new ChildCycle({ workflowType: 'agentCycle', input, summary, description, approvalWaits });
  }

  get cycleId(): string {
    return this.input.cycleId;
  }

  /** Directives given to this cycle: at its start, then forwarded while it runs. */
  get given(): string[] {
    return this.child.given;
  }

  get trigger(): Trigger {
    return this.input.trigger;
  }

  /** Sent on without awaiting: the cycle shows it at its next iteration. The agent checked the cap already. */
  forward(text: string): void {
    this.child.forward(text);
  }

  /** Asks the cycle to stop; {@link run} resolves `'cancelled'` once its workflow has. */
  cancel(): void {
    this.child.cancel();
  }

  /** Hands the agent's record of this cycle to whoever waits on {@link ended}. */
  recorded(record: CycleRecord): void {
    this.settle(record);
  }

  /** Runs the cycle to its result; one that fails outside its own fallback leaves the memory as it was. */
  async run(): Promise<CycleResult | 'cancelled'> {
    const outcome = await this.child.run();
    if ('result' in outcome) return outcome.result;
    if ('cancelled' in outcome) return 'cancelled';
    const { agentId, cycleId, before } = this.input;
    const after = { ...before, notes: `Cycle ${cycleId} failed: ${outcome.error}` };
    return { agentId, cycleId, outcome: 'failed', after, iterations: 0, usage: ZERO_USAGE, error: outcome.error };
  }
}
