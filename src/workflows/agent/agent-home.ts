import { ApplicationFailure, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  type AgentInput,
  type AgentSettings,
  AgentSettingsSchema,
  type AgentStatus,
  CancelCycleArgsSchema,
  type CycleRecord,
  type DirectiveRecord,
  EnqueueArgsSchema,
  InjectArgsSchema,
  type ParsedAgentInput,
  RunCycleArgsSchema,
  SendArgsSchema,
  type SendResult,
  withNotice,
} from '../../core/agent/agent';
import { fitHandover } from '../../core/agent/handover';
import { MAX_CYCLE_DIRECTIVES } from '../../core/cycle/input';
import type { Usage } from '../../core/cycle/model';
import {
  type Scratchpad,
  ScratchpadSchema,
  defaultScratchpad,
  enqueueTasks,
  hasWork,
} from '../../core/scratchpad/scratchpad';
import { queueViolation } from '../../core/scratchpad/state-caps';
import { safeApply } from '../../core/scratchpad/update';
import type { ApprovalWait } from '../../core/tools/approval';
import { AgentError } from '../../common/failure-types';
import { cycleWorkflowId } from '../../common/ids';
import { agentIdKey, cycleCountKey, lastOutcomeKey } from '../../common/search-attributes';
import { RunningCycle, cycleInputFor, summaryOf } from './child-cycle';
import { adoptCycle } from './cycle-end';
import { DeferredChanges } from './deferred-changes';
import { type Finished, type WorkItem, WorkQueue } from './work-queue';
import { directiveOrDropped, wakeOrDropped } from './signals';
import { agentStatus, statusMemo } from './agent-status';
import { replyOrDropped } from './reply-first';
import { TimeTravel } from './time-travel';
import { wokenState } from './wake';

/**
 * The state of one agent's durable home and what its messages do to it: the work queue, the scratchpad,
 * changes deferred while a cycle runs, directives, usage, and what continue-as-new carries over.
 */
export class AgentHome {
  readonly agentId: string;
  settings: AgentSettings;
  scratchpad: Scratchpad;
  cycleCount: number;
  cycles: CycleRecord[];
  heldDirectives: string[];
  directiveLog: DirectiveRecord[];
  usageByModel: Record<string, Usage>;
  notices: string[];
  readonly runs: number;
  readonly travel: TimeTravel;
  /** The cycles to run; a streamed turn is queued here directly (agent.ts), as it is answered by its stream. */
  readonly queue = new WorkQueue();
  private readonly changes = new DeferredChanges(
    () => this.running !== null,
    () => this.persist(),
  );
  private running: RunningCycle | null = null;
  private cyclesThisRun = 0;

  constructor(input: ParsedAgentInput) {
    const { handover } = input;
    this.agentId = input.agentId;
    this.settings = input.settings;
    this.scratchpad = input.scratchpad ?? defaultScratchpad(input.purpose);
    this.cycleCount = handover?.cycleCount ?? 0;
    this.cycles = handover?.cycles ?? [];
    this.heldDirectives = handover?.heldDirectives ?? [];
    this.directiveLog = handover?.directiveLog ?? [];
    this.usageByModel = handover?.usageByModel ?? {};
    this.notices = handover?.notices ?? [];
    this.runs = (handover?.runs ?? 0) + 1;
    this.travel = new TimeTravel(input);
  }

  /** Publishes the scratchpad, and queues the wake a previous run handed over. */
  start(pendingWake: boolean): void {
    upsertSearchAttributes([{ key: agentIdKey, value: this.agentId }]);
    this.persist();
    if (pendingWake && hasWork(this.scratchpad)) this.queue.wake('manual');
  }

  status(): AgentStatus {
    return agentStatus(this, this.running, this.queue.length);
  }

  /** A chat turn, answered as soon as its cycle sends the reply (see {@link reply}); reflect runs after. */
  send(args: unknown): Promise<SendResult> {
    const { message, model } = SendArgsSchema().parse(args);
    return this.queue.ask(message, model);
  }

  /** Cancels the running cycle (the validator checked it is `args.cycleId`); resolves once it is recorded. */
  cancelCycle(args: unknown): Promise<CycleRecord> {
    const { cycleId } = CancelCycleArgsSchema().parse(args);
    const { running } = this;
    // The validator ran against the same state in the same activation; checked again for the types' sake.
    if (running?.cycleId !== cycleId)
      throw ApplicationFailure.nonRetryable(`${cycleId} does not run`, AgentError.BadInput);
    running.cancel();
    return running.ended;
  }

  /** The `reply` signal of the running chat cycle: answers its `send` while the cycle reflects. */
  reply(raw: unknown): void {
    const args = replyOrDropped(raw, this.running?.cycleId);
    if (args) this.queue.reply(args);
  }

  async runCycle(args: unknown): Promise<CycleRecord> {
    const { tasks, maxIterations, model, tools, priorScratchpad } = RunCycleArgsSchema().parse(args);
    if (tasks.length > 0) await this.enqueueChecked(tasks, []);
    const item = { kind: 'task' as const, trigger: 'task' as const, maxIterations, model, tools, priorScratchpad };
    return (await this.queue.submit(item)).record;
  }

  async enqueue(args: unknown): Promise<{ current_task: string | null; pending_actions: string[] }> {
    const { tasks, goals } = EnqueueArgsSchema().parse(args);
    const { current_task, pending_actions } = await this.enqueueChecked(tasks, goals);
    return { current_task, pending_actions };
  }

  // Applied once no cycle runs, which may have grown the state since the validator ran: the caps are checked again,
  // and a refusal then fails the update with nothing changed.
  private async enqueueChecked(tasks: string[], goals: string[]): Promise<Scratchpad> {
    const outcome = await this.changes.applied(() => {
      const after = enqueueTasks(this.scratchpad, tasks, goals);
      const refusal = queueViolation(this.scratchpad, after);
      if (!refusal) this.scratchpad = after;
      return { refusal, state: this.scratchpad };
    });
    if (outcome.refusal) throw ApplicationFailure.nonRetryable(outcome.refusal, AgentError.BadInput);
    return outcome.state;
  }

  async inject(args: unknown): Promise<string> {
    const { section, content } = InjectArgsSchema().parse(args);
    return this.changes.applied(() => {
      const outcome = safeApply(this.scratchpad, { [section]: content });
      // Validated against the state of the moment; a cycle may have changed it since, so report rather than throw.
      if (!outcome.ok) return `not applied: ${outcome.error}`;
      this.scratchpad = outcome.state;
      return JSON.stringify((outcome.state as Record<string, unknown>)[section] ?? content);
    });
  }

  async import(state: unknown): Promise<void> {
    const next = ScratchpadSchema().parse(state);
    await this.changes.applied(() => (this.scratchpad = next));
  }

  /** Adopts an earlier cycle's after-state (the validator refused while a cycle runs) and records the rewind. */
  rewind(args: unknown) {
    const { state, record } = this.travel.rewind(args, new Date());
    this.scratchpad = state;
    this.persist();
    return record;
  }

  configure(changes: Partial<AgentSettings>): AgentSettings {
    this.settings = AgentSettingsSchema().parse({ ...this.settings, ...changes });
    this.persist(); // `status` and `export` read them from the memo
    return this.settings;
  }

  wake(args: unknown): void {
    const parsed = wakeOrDropped(args);
    if (!parsed) return;
    const { tasks, trigger } = parsed;
    this.changes.apply(() => {
      this.scratchpad = wokenState(this.scratchpad, tasks);
      if (hasWork(this.scratchpad)) this.queue.wake(trigger);
    });
  }

  directive(raw: unknown): void {
    const { running } = this;
    const pending = [...this.heldDirectives, ...(running ? running.given : [])];
    const text = directiveOrDropped(raw, pending, (reason) => this.notice(`dropped a directive signal: ${reason}`));
    if (text !== undefined && running) running.forward(text);
    else if (text !== undefined) this.heldDirectives.push(text);
  }

  /** Something refused with no caller to tell: the agent's status shows it. */
  private notice(text: string): void {
    this.notices = withNotice(this.notices, text, new Date());
  }

  hasQueuedWork(): boolean {
    return this.queue.length > 0;
  }

  shouldContinueAsNew(): boolean {
    return workflowInfo().continueAsNewSuggested || this.cyclesThisRun >= this.settings.continueAsNewEvery;
  }

  /** The input of the next run: the memory, settings and anything still queued. */
  handover(): AgentInput {
    const { agentId, scratchpad, settings, cycleCount, cycles, heldDirectives, directiveLog, usageByModel } = this;
    const handover = { cycleCount, cycles, heldDirectives, directiveLog, usageByModel, runs: this.runs };
    const { notices } = this;
    const pendingWake = this.queue.length > 0;
    return fitHandover(
      this.travel.carry({ agentId, scratchpad, settings, handover: { ...handover, pendingWake, notices } }),
    );
  }

  /** Runs the oldest queued item as a child cycle (its waits told to `approvals`) and adopts its result, if any. */
  async runNext(approvals: (wait: ApprovalWait) => void): Promise<void> {
    const item = this.queue.next();
    if (item) this.queue.finish(item, await this.runItem(item, approvals));
  }

  // The memo lets `show`, `snapshots` and `status` read the agent from the server with no worker running.
  private persist(): void {
    upsertMemo({ scratchpad: this.scratchpad, status: statusMemo(this.status()), ...this.travel.memo() });
  }

  private async runItem(item: WorkItem, approvals: (wait: ApprovalWait) => void): Promise<Finished> {
    this.cycleCount++;
    this.cyclesThisRun++;
    const cycleId = cycleWorkflowId(this.agentId, this.cycleCount);
    // A cycle takes at most its cap of directives; the rest stay held, in order, for the next one.
    const input = cycleInputFor(item, this, cycleId, this.heldDirectives.splice(0, MAX_CYCLE_DIRECTIVES));
    const child = (this.running = new RunningCycle(input, summaryOf(item, this.scratchpad), approvals));
    this.queue.started(item, cycleId);
    const result = await child.run();
    this.running = null;
    const record = adoptCycle(this, child, result);
    upsertSearchAttributes([
      { key: cycleCountKey, value: this.cycleCount },
      { key: lastOutcomeKey, value: record.outcome },
    ]);
    this.changes.release();
    this.persist();
    child.recorded(record);
    return { record, ...(result !== 'cancelled' ? { reply: result.reply } : {}) };
  }
}
