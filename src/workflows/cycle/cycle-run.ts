import { patched, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  applyArchive,
  applyCompletedArchive,
  hasArchivePointer,
  planArchive,
  planCompletedArchive,
} from '../../core/scratchpad/budget';
import type { ParsedCycleInput, TraceEntry } from '../../core/cycle/input';
import { type ModelRequest, type ModelResponse, type Usage, ZERO_USAGE, addUsage } from '../../core/cycle/model';
import { type Observation, isStoredObservation, offeredWorkTools } from '../../core/tools/observation';
import type { Action } from '../../core/cycle/parse';
import { renderMarkdown } from '../../core/scratchpad/render';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { applyUpdate } from '../../core/cycle/dispatch';
import { normalizePath, pathCapRefusal, scratchpadFromArgs, withPriorScratchpad } from '../../core/staged/rules';
import { modelActivityOptions, toolActivityOptions } from './activity-options';
import { timeline } from '../../common/timeline-sink';
import { SPAWN_SUBAGENT } from '../../core/tools/catalogue';
import { withChildUsage } from '../../core/agent/subagent';
import { spawnSubagent } from '../agent/subagent';
import { BOARD_WRITE, boardWriteTool } from '../research/board-write';

/** Patch id of the completed-task archive: cycles recorded before it never archived completed tasks. */
export const COMPLETED_TASKS_ARCHIVE_PATCH = 'archive-completed-tasks';

function activitiesFor(input: ParsedCycleInput): Pick<Activities, 'callModel' | 'runTool'> {
  const { callModel } = proxyActivities<Activities>(modelActivityOptions(input.maxAttempts));
  const { runTool } = proxyActivities<Activities>(toolActivityOptions(input.maxAttempts));
  return { callModel, runTool };
}

/**
 * The mutable state of one cycle execution: the live scratchpad, trace, usage and directive inbox,
 * plus the activity calls that update them. Queries read it; the task loop and chat turn drive it.
 */
export class CycleRun {
  state: Scratchpad;
  readonly trace: TraceEntry[] = [];
  usage: Usage = ZERO_USAGE;
  readonly usageByModel: Record<string, Usage> = {};
  iterations = 0;
  /** Chat: the reply, once the respond phase has produced it. */
  reply?: string;
  hasStoredObservations = false;
  readonly archived: { section: string; id: string; chars: number }[] = [];
  /** Seed 004: paths `fs_write` wrote, and those the path cap refused. */
  readonly touchedPaths: string[] = [];
  readonly refusedPaths: string[] = [];
  /** A research investigation's accepted `board_write` (`VERIFIED e7`): it ends the cycle. */
  boardEntry?: string;
  /** Sub-agents this cycle has started, towards its per-cycle limit. */
  private subagents = 0;
  private readonly inbox: string[] = [];
  private readonly shown: { text: string; iteration: number }[] = [];
  private readonly activities: Pick<Activities, 'callModel' | 'runTool'>;

  constructor(
    readonly input: ParsedCycleInput,
    readonly cycleId: string,
    /** Stores archived scratchpad content durably and returns its id. */
    private readonly archiver: (section: string, content: string) => Promise<string>,
  ) {
    this.state = input.before;
    this.activities = activitiesFor(input);
    this.inbox.push(...input.directives);
  }

  /** A directive signal: the model sees it from its next iteration on. */
  receiveDirective(text: string): void {
    this.inbox.push(text);
  }

  /** Every directive of this cycle so far, marking new ones as first seen at `iteration`. */
  directivesFor(iteration: number): string[] {
    for (const text of this.inbox.splice(0)) this.shown.push({ text, iteration });
    return this.shown.map((entry) => entry.text);
  }

  get directives(): { text: string; iteration: number }[] {
    return [...this.shown];
  }

  async callModel(request: ModelRequest): Promise<ModelResponse> {
    const response = await this.activities.callModel(request);
    this.usage = addUsage(this.usage, response.usage);
    this.usageByModel[response.model] = addUsage(this.usageByModel[response.model] ?? ZERO_USAGE, response.usage);
    return response;
  }

  async runTool(action: Action, step: number): Promise<Observation> {
    if (action.tool === 'write_files') return this.writeFiles(action, step);
    if (action.tool === SPAWN_SUBAGENT) return this.spawnSubagent(action);
    if (action.tool === BOARD_WRITE) return this.boardWrite(action);
    const path = action.tool === 'fs_write' && typeof action.args.path === 'string' ? action.args.path : undefined;
    const refusal = path === undefined ? undefined : this.pathCapRefusal(path);
    if (refusal !== undefined) return { ok: false, error: refusal };
    const call = {
      cycleId: this.cycleId,
      agentId: this.input.agentId,
      step,
      name: action.tool,
      args: action.args,
      ...(this.input.research && { boardId: this.input.research.supervisorId }),
    };
    const observation = await this.activities.runTool(call);
    if (isStoredObservation(observation)) this.hasStoredObservations = true;
    if (path !== undefined && observation.ok && !this.touchedPaths.includes(normalizePath(path))) {
      this.touchedPaths.push(normalizePath(path));
    }
    return observation;
  }

  /** A child cycle, not an activity; its model calls count as this cycle's. */
  private async spawnSubagent(action: Action): Promise<Observation> {
    const spawned = await spawnSubagent(this.input, this.cycleId, this.subagents, action.args);
    if (spawned.started) this.subagents++;
    if (spawned.result) {
      const added = withChildUsage(this, spawned.result);
      this.usage = added.usage;
      Object.assign(this.usageByModel, added.usageByModel);
    }
    return spawned.observation;
  }

  private async boardWrite(action: Action): Promise<Observation> {
    const written = await boardWriteTool(this.input.research, action.args, this.usageByModel);
    if (written.entry !== undefined) this.boardEntry = written.entry;
    return written.observation;
  }

  /** Seed 004's envelope writes several files in one reply: each is an `fs_write`, under the same path cap. */
  private async writeFiles(action: Action, step: number): Promise<Observation> {
    const files = Array.isArray(action.args.files) ? (action.args.files as unknown[]).slice(0, 10) : [];
    if (files.length === 0) return { ok: false, error: 'write_files needs "files": [{"path": ..., "content": ...}]' };
    const results: string[] = [];
    for (const file of files) {
      const { path, content } = (file ?? {}) as { path?: unknown; content?: unknown };
      const observation = await this.runTool({ tool: 'fs_write', args: { path, content } }, step);
      results.push(observation.ok ? String(observation.result) : `${String(path)}: ${observation.error ?? 'failed'}`);
    }
    return { ok: true, result: results.join('\n') };
  }

  private pathCapRefusal(path: string): string | undefined {
    if (this.input.maxPaths === undefined) return undefined;
    const refusal = pathCapRefusal(this.touchedPaths, path, this.input.maxPaths);
    if (refusal !== undefined) this.refusedPaths.push(normalizePath(path));
    return refusal;
  }

  /** The user message with seed 004's additions: a staged run's stage context, then the prior scratchpad last. */
  decoratePrompt(prompt: string): string {
    const withStage = this.input.stageContext ? `${prompt}\n\n${this.input.stageContext}` : prompt;
    return withPriorScratchpad(withStage, this.input.priorScratchpad);
  }

  /** The model's run-local notes: the last `scratchpad` field it put in any tool's arguments. */
  get scratchpad(): string | undefined {
    for (let index = this.trace.length - 1; index >= 0; index--) {
      const notes = scratchpadFromArgs(this.trace[index]?.action?.args);
      if (notes !== undefined) return notes;
    }
    return undefined;
  }

  /**
   * Work tools to offer now: seed 002's `scratchpad_read` joins once this cycle has stored a large observation,
   * or when the scratchpad points at content its budget archived. `board_write` only where a fact may be written.
   */
  workTools(): string[] {
    const tools = offeredWorkTools(this.input.tools, this.hasStoredObservations || hasArchivePointer(this.state));
    return this.input.research?.mayWrite ? tools : tools.filter((tool) => tool !== BOARD_WRITE);
  }

  /** Applies an `update_scratchpad` call with seed 001's safe_apply; a rejection is noted, never thrown. */
  applyUpdate(args: unknown): string | undefined {
    // safe_apply validates the arguments whatever their shape.
    const step = applyUpdate(this.state, { tool: 'update_scratchpad', args: args as Record<string, unknown> });
    this.state = step.state;
    return step.kind === 'update' ? step.error : undefined;
  }

  /**
   * Marks the end of an iteration: the Web UI shows a workflow's current details, so the live
   * scratchpad goes there, and the timeline sink lets a replay recover it.
   */
  publish(label: string, prefix = ''): void {
    setCurrentDetails(`${prefix}${renderMarkdown(this.state)}`);
    timeline.iteration({ iteration: this.iterations, label, state: this.state });
  }

  /** Keeps the rendered scratchpad within budget by archiving the oldest content of growing sections. */
  async enforceBudget(): Promise<void> {
    for (const cut of planArchive(this.state, this.input.budgetChars)) {
      const id = await this.archiver(cut.section, cut.removed);
      this.state = applyArchive(this.state, cut, id);
      this.archived.push({ section: cut.section, id, chars: cut.removed.length });
    }
    await this.archiveCompletedTasks();
  }

  /** Moves the oldest completed tasks to the store once there are too many; histories from before replay without. */
  async archiveCompletedTasks(): Promise<void> {
    const cut = planCompletedArchive(this.state);
    if (!cut || !patched(COMPLETED_TASKS_ARCHIVE_PATCH)) return;
    const id = await this.archiver('completed_tasks', cut.removed);
    this.state = applyCompletedArchive(this.state, cut, id);
    this.archived.push({ section: 'completed_tasks', id, chars: cut.removed.length });
  }
}
