import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  applyArchive,
  applyCompletedArchive,
  cutsKnown,
  hasArchivePointer,
  planArchive,
  planCompletedArchive,
} from '../../core/scratchpad/budget';
import { ModelFallbacks } from './model-fallback';
import type { CycleResult, ParsedCycleInput, TraceEntry } from '../../core/cycle/input';
import {
  type ModelRequest,
  type ModelResponse,
  type Usage,
  ZERO_USAGE,
  addUsage,
  withChildUsage,
} from '../../core/cycle/model';
import { type Observation, offeredWorkTools } from '../../core/tools/observation';
import type { UnknownOutcome } from '../../core/tools/idempotency';
import type { Action } from '../../core/cycle/parse';
import { renderMarkdown } from '../../core/scratchpad/render';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { scratchpadFromArgs, withPriorScratchpad } from '../../core/cycle/run-notes';
import { timeline } from '../../common/timeline-sink';
import { appendNote } from '../../core/scratchpad/update';
import { DirectiveInbox } from './directive-inbox';
import { modelActivityOptions, toolActivityOptions } from './activity-options';
import { CycleTools } from './cycle-tools';
import { CycleApprovals } from './approvals';
import type { CycleFeature, ToolHandler } from './tool-handler';
import { runCycleToolCall } from './tool-call';
import { heartbeatTimeoutOf } from '../../core/cycle/liveness';
import { TurnStreamLog } from '../../core/cycle/turn-stream';

/**
 * The mutable state of one cycle execution: the live scratchpad, trace, usage and directive inbox, the features it
 * runs with, and the activity calls that update them. Queries read it; the task loop and chat turn drive it.
 */
export class CycleRun {
  state: Scratchpad;
  readonly trace: TraceEntry[] = [];
  usage: Usage = ZERO_USAGE;
  usageByModel: Record<string, Usage> = {};
  iterations = 0;
  /** Chat: the reply, once the respond phase has produced it. */
  reply?: string;
  /** Chat: the reply stopped at the output cap. */
  replyCut = false;
  /** Chat: why reflect left the memory as it was. */
  memoryUnchanged?: string;
  hasStoredObservations = false;
  readonly archived: { section: string; id: string; chars: number }[] = [];
  readonly models = new ModelFallbacks();
  /** Calls of this cycle and its sub-agents that may or may not have taken effect. */
  readonly unknownOutcomes: UnknownOutcome[] = [];
  /** How many `runTool` calls each step has made, for their idempotency keys. */
  readonly callsAt = new Map<number, number>();
  readonly inbox: DirectiveInbox;
  /** The turn's stream: reply text as it comes (when the input asks for it), tool calls, and the end. */
  readonly stream = new TurnStreamLog();
  private streamCalls = 0;
  private readonly activities: Pick<Activities, 'callModel' | 'runTool'>;
  private readonly handlers = new Map<string, ToolHandler>();
  readonly tools: CycleTools;
  readonly approvals: CycleApprovals;
  /** What waits, in words, when a call of this cycle waits for a person, as its features say it. */
  readonly waitContext: string | undefined;

  constructor(
    readonly input: ParsedCycleInput,
    readonly cycleId: string,
    /** Stores archived scratchpad content durably and returns its id. */
    private readonly archiver: (section: string, content: string) => Promise<string>,
    readonly features: readonly CycleFeature[] = [],
  ) {
    this.state = input.before;
    const model = modelActivityOptions(input.maxAttempts, heartbeatTimeoutOf(input, 'model'));
    const tool = toolActivityOptions(input.maxAttempts, undefined, heartbeatTimeoutOf(input, 'tool'));
    const { callModel } = proxyActivities<Activities>(model);
    const { runTool } = proxyActivities<Activities>(tool);
    this.activities = { callModel, runTool };
    this.inbox = new DirectiveInbox(input.directives);
    for (const feature of features) {
      for (const [name, handler] of Object.entries(feature.handlers ?? {})) this.handlers.set(name, handler);
    }
    const owned = features.flatMap((feature) => feature.owns ?? []);
    this.tools = new CycleTools(input.tools, [...this.handlers.keys(), ...owned], input, runTool);
    const publish = (label: string, prefix?: string) => this.publish(label, prefix);
    const policyOf = (tool: string) => this.tools.policyOf(tool);
    this.waitContext = features.find((feature) => feature.waitContext !== undefined)?.waitContext;
    this.approvals = new CycleApprovals({ cycleId, input, waitContext: this.waitContext, publish, policyOf });
  }

  /** Every directive of this cycle so far, marking new ones as first seen at `iteration`. */
  directivesFor(iteration: number): string[] {
    const shown = this.inbox.showAt(iteration);
    this.noteDropped();
    return shown;
  }

  noteDropped(): void {
    const note = this.inbox.droppedNote();
    if (note) this.state = { ...this.state, notes: appendNote(this.state.notes, note) };
  }

  get directives(): { text: string; iteration: number }[] {
    return this.inbox.log;
  }

  /** The workflow-side tool registered under `name`, if a feature registered one. */
  handlerFor(name: string): ToolHandler | undefined {
    return this.handlers.get(name);
  }

  /**
   * One model call, through the models of its list until one answers (model-fallback.ts). With `rebuild`, a prompt
   * the model's context window refuses is not the cycle's end (design.md, Bounded output and context): the scratchpad
   * archives half its rendered size, a note says so, and the request `rebuild` makes from the smaller memory is sent
   * once more.
   */
  async callModel(request: ModelRequest, rebuild?: () => ModelRequest, streamed = false): Promise<ModelResponse> {
    return this.models.call(this, request, rebuild, streamed);
  }

  /**
   * One `callModel` activity, its usage counted. `streamed`: its text goes to the turn's stream as it comes, when the
   * input asks for that; each activity is a call of its own there, so a fallback's or a retry's text is told apart.
   */
  async callModelOnce(request: ModelRequest, streamed = false): Promise<ModelResponse> {
    const { cacheTtl } = this.input;
    const stream = streamed && this.input.stream ? { stream: ++this.streamCalls } : {};
    const response = await this.activities.callModel({ ...request, ...(cacheTtl ? { cacheTtl } : {}), ...stream });
    this.usage = addUsage(this.usage, response.usage);
    this.usageByModel[response.model] = addUsage(this.usageByModel[response.model] ?? ZERO_USAGE, response.usage);
    return response;
  }

  /** Lists the worker's tools and selects this cycle's; what could not be offered goes to notes. */
  async loadTools(): Promise<void> {
    for (const line of await this.tools.load())
      this.state = { ...this.state, notes: appendNote(this.state.notes, line) };
  }

  /**
   * One call in the `runTool` activity, under the features' policies (a refusal is the model's observation) and its
   * tool's approval policy: a call that asks waits for a person, and runs as approved, or not at all.
   */
  runTool(proposed: Action, step: number): Promise<Observation> {
    return runCycleToolCall(this, proposed, step);
  }

  /** The first feature's reason to refuse a call, if any. */
  refusalOf(action: Action): string | undefined {
    for (const feature of this.features) {
      const refusal = feature.refuse?.(action);
      if (refusal !== undefined) return refusal;
    }
    return undefined;
  }

  /** A child cycle's model calls count as this cycle's, in total and by model. */
  addChildUsage(child: Pick<CycleResult, 'usage' | 'usageByModel'>): void {
    ({ usage: this.usage, usageByModel: this.usageByModel } = withChildUsage(this, child));
  }

  /** The user message with what the features append, then the prior scratchpad at the very bottom. */
  decoratePrompt(prompt: string): string {
    const decorated = this.features.reduce((text, feature) => feature.decoratePrompt?.(text) ?? text, prompt);
    return withPriorScratchpad(decorated, this.input.priorScratchpad);
  }

  /** The model's run-local notes: the last `scratchpad` field it put in any tool's arguments. */
  get runNotes(): string | undefined {
    for (let index = this.trace.length - 1; index >= 0; index--) {
      const notes = scratchpadFromArgs(this.trace[index]?.action?.args);
      if (notes !== undefined) return notes;
    }
    return undefined;
  }

  /**
   * Work tools to offer now: `scratchpad_read` joins once this cycle has stored a large observation, or when the
   * scratchpad points at content its budget archived; then each feature may narrow the list.
   */
  workTools(): string[] {
    const tools = offeredWorkTools(this.tools.selected, this.hasStoredObservations || hasArchivePointer(this.state));
    return this.features.reduce((offered, feature) => feature.offer?.(offered) ?? offered, tools);
  }

  /** Whether a feature has ended the cycle (an accepted board write ends an investigation, as `done` a task). */
  isFinished(): boolean {
    return this.features.some((feature) => feature.isFinished?.() ?? false);
  }

  /** The fields every `runTool` call of this cycle carries, as its features give them; opaque here. */
  callContext(): Record<string, string> {
    return Object.assign({}, ...this.features.map((feature) => feature.callContext ?? {}));
  }

  /**
   * Marks the end of an iteration: the Web UI shows a workflow's current details, so the live
   * scratchpad goes there, and the timeline sink lets a replay recover it.
   */
  publish(label: string, prefix = ''): void {
    setCurrentDetails(`${prefix}${renderMarkdown(this.state)}`);
    timeline.iteration({ iteration: this.iterations, label, state: this.state });
  }

  /**
   * Keeps the rendered scratchpad within `budget` (the agent's, unless a context refusal asks for less) by archiving
   * the oldest content of growing sections; returns the characters moved.
   */
  async enforceBudget(budget = this.input.budgetChars): Promise<number> {
    // Known in chunks, so the cached prompt prefix it sits in lasts from one cut to the next.
    const chunked = cutsKnown(this.state, budget);
    let moved = 0;
    for (const cut of planArchive(this.state, budget, chunked)) {
      const id = await this.archiver(cut.section, cut.removed);
      this.state = applyArchive(this.state, cut, id);
      this.archived.push({ section: cut.section, id, chars: cut.removed.length });
      moved += cut.removed.length;
    }
    await this.archiveCompletedTasks();
    return moved;
  }

  /** Moves the oldest completed tasks to the store once there are too many. */
  async archiveCompletedTasks(): Promise<void> {
    const cut = planCompletedArchive(this.state);
    if (!cut) return;
    const id = await this.archiver('completed_tasks', cut.removed);
    this.state = applyCompletedArchive(this.state, cut, id);
    this.archived.push({ section: 'completed_tasks', id, chars: cut.removed.length });
  }
}
