import type {
  Client,
  WorkflowExecutionDescription,
  WorkflowHandle,
  WorkflowHandleWithSignaledRunId,
  WorkflowUpdateOptions,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type {
  AgentSettings,
  AgentStatus,
  CycleRecord,
  DirectiveRecord,
  EnqueueArgs,
  InjectArgs,
  RunCycleArgs,
  SendArgs,
  SendResult,
  WakeArgs,
} from '../core/agent/agent';
import { type CycleResult, DirectiveTextSchema, MAX_DIRECTIVE_CHARS } from '../core/cycle/input';
import type { RewindArgs, RewindRecord } from '../core/agent/time-travel';
import { describeIssues } from '../common/workflow-input';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { agentWorkflowId } from '../common/ids';
import * as messages from '../common/messages/agent';
import { currentQuery } from '../common/messages/cycle';
import type { AgentCycleWorkflow, AgentWorkflow } from '../common/workflow-types';
import { type AgentTarget, describeAgent, signalAgent, startAgent, updateAgent } from './agent-start';
import { type CycleStates, type History, decodedCycleStatesFromHistory, fetchHistory } from './histories';
import { type CycleSummary, listAgentCycles } from './cycle-list';
import { refusingOversize } from './payload-limit';
import { requireWorker } from './task-queues';
import { type FollowOptions, type TurnEvent, TurnStream, followTurn } from './turn-stream';

export { type AgentTarget, describeAgent, signalAgent, updateAgent } from './agent-start';
export type { CycleSummary } from './cycle-list';

/**
 * The agents facade: starts, messages and reads agents (`agent/<agentId>`) and their cycles. Every call that writes
 * starts the agent first when it is not running; every read works without a worker unless it is a query.
 */
export class Agents {
  constructor(readonly client: Client) {}

  /** Starts the agent workflow, or finds it running. */
  start(target: AgentTarget): Promise<WorkflowHandle<AgentWorkflow>> {
    return startAgent(this.client, target);
  }

  /** Runs any of the agent's updates, starting the agent first if it is not running (update-with-start). */
  update<Ret, Args extends unknown[]>(
    target: AgentTarget,
    update: UpdateDefinition<Ret, Args>,
    args: Args,
    options: Partial<WorkflowUpdateOptions> = {},
  ): Promise<Ret> {
    return updateAgent(this.client, target, update, args, options);
  }

  /**
   * Sends the agent its `directive` or `wake` signal as given, starting it if need be (signal-with-start); a payload
   * too large is a RangeError. `directive` and `wake` check their arguments first.
   */
  signal(
    target: AgentTarget,
    name: 'directive' | 'wake',
    args: unknown[],
  ): Promise<WorkflowHandleWithSignaledRunId<AgentWorkflow>> {
    const signal = name === 'directive' ? messages.directiveSignal : messages.wakeSignal;
    const advice = `an agent takes a directive of at most ${MAX_DIRECTIVE_CHARS} characters, and a few tasks per wake`;
    const what = `the ${name} signal to agent ${target.agentId}`;
    return refusingOversize(what, advice, () => signalAgent(this.client, target, signal, args));
  }

  /**
   * One chat turn: resolves to the reply as soon as respond ends; reflect runs after, before the agent's next turn.
   * `args.model` runs this turn on that model instead of the agent's (the worker refuses one it does not allow).
   */
  async send(target: AgentTarget, args: SendArgs): Promise<SendResult> {
    await requireWorker(this.client, target.taskQueue);
    return this.update(target, messages.sendUpdate, [args]);
  }

  /**
   * One chat turn, streamed (design.md, Streaming): iterate the result for the reply's text as the model writes it,
   * its tool calls as they run, and the event that ends it (`done`, `error`, `cancelled`); `result` resolves as `send`
   * does. Refused at once when no worker polls the agent's task queue.
   */
  stream(target: AgentTarget, args: SendArgs, options: Omit<FollowOptions, 'from'> = {}): TurnStream {
    return new TurnStream(this.startTurn(target, args), (cycleId) => this.resume(cycleId, options));
  }

  /** Starts a chat turn to read with `resume`: its cycle id once the cycle has started (`stream` does both). */
  async startTurn(target: AgentTarget, args: SendArgs): Promise<string> {
    await requireWorker(this.client, target.taskQueue);
    return (await this.update(target, messages.startTurnUpdate, [args])).cycleId;
  }

  /**
   * The stream of the chat turn `cycleId` (as `send` and `stream` give it) from `options.from` on (the offset after the last event a reader
   * saw): after a reconnect, no event twice and none missed. Ends with the turn's last event.
   */
  resume(cycleId: string, options: FollowOptions = {}): AsyncGenerator<TurnEvent> {
    return followTurn(this.client, cycleId, options);
  }

  /**
   * Cancels the agent's running cycle `cycleId` (a chat turn's Ctrl-C): the cycle ends cancelled and the agent's memory
   * stays as it was. Resolves once the agent has recorded it; refused (a `WorkflowUpdateFailedError` with the reason)
   * when that cycle is not the one running. Never starts the agent.
   */
  cancelCycle(target: Pick<AgentTarget, 'agentId'>, cycleId: string): Promise<CycleRecord> {
    return this.handle(target.agentId).executeUpdate(messages.cancelCycleUpdate, { args: [{ cycleId }] });
  }

  /**
   * Resolves with the record of the agent's cycle `cycleId` once the agent has adopted its result: its memory, status
   * and `cycles()` then include the cycle (a `send` answers before its reflect; this waits for that too). Answers at
   * once for a cycle adopted already; refused at once (a `WorkflowUpdateFailedError` with the reason) for a cycle the
   * agent never started or no longer keeps. Never starts the agent.
   */
  waitForCycle(target: Pick<AgentTarget, 'agentId'>, cycleId: string): Promise<CycleRecord> {
    return this.handle(target.agentId).executeUpdate(messages.waitForCycleUpdate, { args: [{ cycleId }] });
  }

  /** One task cycle, with the given tasks enqueued first; resolves when the cycle has finished. */
  runCycle(target: AgentTarget, args: RunCycleArgs = {}): Promise<CycleRecord> {
    return this.update(target, messages.runCycleUpdate, [args]);
  }

  /** Adds tasks and goals to the agent's scratchpad without running a cycle. */
  enqueue(target: AgentTarget, args: EnqueueArgs): Promise<{ current_task: string | null; pending_actions: string[] }> {
    return this.update(target, messages.enqueueUpdate, [args]);
  }

  /** Sets one scratchpad section (`scratchpad inject`); resolves to the section's new content. */
  inject(target: AgentTarget, args: InjectArgs): Promise<string> {
    return this.update(target, messages.injectUpdate, [args]);
  }

  /** Replaces the agent's active scratchpad (`scratchpad import`). */
  import(target: AgentTarget, scratchpad: Scratchpad): Promise<void> {
    return this.update(target, messages.importUpdate, [scratchpad]);
  }

  /** Adopts the after-state of the agent's cycle `args.to` (see `rewindAgent`, which reads it from history). */
  rewind(target: AgentTarget, args: RewindArgs): Promise<RewindRecord> {
    return this.update(target, messages.rewindUpdate, [args]);
  }

  /** Changes how the agent runs its cycles (an agent this call starts starts with them); resolves to the settings. */
  configure(target: AgentTarget, settings: Partial<AgentSettings>): Promise<AgentSettings> {
    return this.update({ ...target, settings }, messages.configureUpdate, [settings]);
  }

  /**
   * Steers the agent: the running cycle reads `text` at its next iteration, or the next cycle does. Text the agent
   * would drop (blank, or over 2,000 characters) is refused here, since a signal has no answer.
   */
  async directive(target: AgentTarget, text: string): Promise<void> {
    const parsed = DirectiveTextSchema().safeParse(text);
    if (!parsed.success) throw new RangeError(`directive refused: ${describeIssues(parsed.error)}`);
    await this.signal(target, 'directive', [text]);
  }

  /** Asks the agent to run a task cycle if tasks are pending, with `args.tasks` enqueued first. */
  async wake(target: AgentTarget, args?: WakeArgs): Promise<void> {
    await this.signal(target, 'wake', args === undefined ? [] : [args]);
  }

  /** The agent's active scratchpad, asked of the running workflow (a query: a worker must answer). */
  scratchpad(agentId: string): Promise<Scratchpad> {
    return this.handle(agentId).query(messages.scratchpadQuery);
  }

  /** Cycles, the running cycle, held directives, usage and cost (a query). */
  status(agentId: string): Promise<AgentStatus> {
    return this.handle(agentId).query(messages.statusQuery);
  }

  /** The cycles the agent's current run knows of, as the workflow records them (a query). */
  cycles(agentId: string): Promise<CycleRecord[]> {
    return this.handle(agentId).query(messages.cyclesQuery);
  }

  /** Every directive the agent received and what became of it (a query). */
  directives(agentId: string): Promise<DirectiveRecord[]> {
    return this.handle(agentId).query(messages.directivesQuery);
  }

  /** The agent workflow's latest run as the server describes it; undefined when the agent was never started. */
  describe(agentId: string): Promise<WorkflowExecutionDescription | undefined> {
    return describeAgent(this.client, agentId);
  }

  /** The active scratchpad from the agent workflow's memo, readable with no worker; undefined for a new agent. */
  async memo(agentId: string): Promise<{ scratchpad: Scratchpad } | undefined> {
    const memo = (await this.describe(agentId))?.memo as { scratchpad?: Scratchpad } | undefined;
    return memo?.scratchpad ? { scratchpad: memo.scratchpad } : undefined;
  }

  /** Every cycle of the agent known to visibility, oldest first. */
  listCycles(agentId: string): Promise<CycleSummary[]> {
    return listAgentCycles(this.client, agentId);
  }

  /**
   * The active scratchpad (`active.yaml`) from histories alone: the after-state of the agent's latest completed cycle
   * with `last_updated` stamped at the time that cycle closed; undefined while no cycle has completed.
   */
  async activeScratchpad(agentId: string): Promise<{ state: Scratchpad; cycle: CycleSummary } | undefined> {
    const completed = (await this.listCycles(agentId)).filter((cycle) => cycle.status === 'COMPLETED');
    const latest = completed.at(-1);
    if (!latest) return undefined;
    const result: CycleResult = await this.cycleHandle(latest.workflowId, latest.runId).result();
    const stamp = (latest.closeTime ?? new Date()).toISOString();
    return { state: { ...result.after, last_updated: stamp }, cycle: latest };
  }

  /** A cycle (`agent/<agentId>/cycle/<n>`) as the server describes it; rejects when there is no such cycle. */
  describeCycle(cycleId: string): Promise<WorkflowExecutionDescription> {
    return this.cycleHandle(cycleId).describe();
  }

  /** A cycle's history: its latest run, or the run `runId` names. */
  cycleHistory(cycleId: string, runId?: string): Promise<History> {
    return fetchHistory(this.client, cycleId, runId);
  }

  /** A cycle's before-state and, once it has completed, its result, read from its history (no worker needed). */
  async cycleStates(cycleId: string, runId?: string): Promise<CycleStates> {
    return decodedCycleStatesFromHistory(this.client, await this.cycleHistory(cycleId, runId));
  }

  /** The live scratchpad of a running cycle, as of its last iteration (a query). */
  currentScratchpad(cycleId: string): Promise<Scratchpad> {
    return this.cycleHandle(cycleId).query(currentQuery);
  }

  private handle(agentId: string): WorkflowHandle<AgentWorkflow> {
    return this.client.workflow.getHandle<AgentWorkflow>(agentWorkflowId(agentId));
  }

  private cycleHandle(cycleId: string, runId?: string): WorkflowHandle<AgentCycleWorkflow> {
    return this.client.workflow.getHandle<AgentCycleWorkflow>(cycleId, runId);
  }
}
