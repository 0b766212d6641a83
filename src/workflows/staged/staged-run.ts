import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { type ModelRequest, type Usage, ZERO_USAGE, addUsage } from '../../core/cycle/model';
import { SCRATCHPAD_READ } from '../../core/tools/observation';
import { parseAction } from '../../core/cycle/parse';
import { defaultScratchpad, enqueueTasks } from '../../core/scratchpad/scratchpad';
import {
  NO_OP_CORRECTION,
  NO_PLAN_NOTICE,
  buildPlanPrompt,
  buildStageContext,
  parsePlan,
  stageChange,
} from '../../core/staged/rules';
import { scratchpadFromArgs, withPriorScratchpad } from '../../core/cycle/run-notes';
import {
  MAX_STAGE_FILES,
  type ParsedStagedInput,
  type StageCycleInput,
  type StageCycleResult,
  type StageFile,
  type StageRecord,
  type Verification,
} from '../../core/staged/input';
import type { StagedProgress } from '../../common/messages/staged';
import { stageCycleId } from '../../common/ids';
import { modelActivityOptions } from '../cycle/activity-options';
import { callModelThroughList } from '../cycle/model-fallback';
import { ChildCycle } from '../cycle/child-cycle';
import { QUOTE_POINTS } from '../cycle/cycle-details';
import type { ApprovalWait } from '../../core/tools/approval';
import { headCodePoints } from '../../core/text';
import { heartbeatTimeoutOf } from '../../core/cycle/liveness';

/** Tools a stage is offered: reading and writing files, so the path cap sees every change. */
const STAGE_TOOLS = ['fs_read', 'fs_write', 'write_files'];
/** The plan-only turn offers only this: nothing that writes. */
export const PLAN_TOOLS = ['plan'];

/** One stage to run: what it asks, and where it sits. */
interface StageSpec {
  kind: 'stage' | 'repair';
  stage: string;
  /** 1-based plan index; none for a repair. */
  index?: number;
  label: string;
  /** A verification output stored in the observation store, readable by this stage's first attempt. */
  storedOutput?: boolean;
}

/** The state of one staged run and the steps that change it; `stagedTask` drives it, the query reads it. */
export class StagedRun {
  phase: StagedProgress['phase'] = 'planning';
  plan: string[] = [];
  readonly stages: StageRecord[] = [];
  readonly verifications: Verification[] = [];
  readonly files: string[] = [];
  /**
   * Where the newest content of each written path is stored, oldest write first, for verification to restore on
   * whichever worker runs it. At most MAX_STAGE_FILES paths (4 KB each at most): well within a payload.
   */
  readonly stageFiles: StageFile[] = [];
  /** The model's latest run-local notes. */
  notes?: string;
  usage: Usage = ZERO_USAGE;
  /** Set when a stage's cycle failed: the run cannot go on. */
  failure?: string;
  /** What happened that the stages alone do not say (no plan, nothing changed): in the result and the progress. */
  readonly notices: string[] = [];
  private readonly activities: Pick<Activities, 'callModel' | 'runVerification'>;

  constructor(
    readonly input: ParsedStagedInput,
    readonly runId: string,
    /** Hears the calls a stage waits on for a person. */
    private readonly approvalWaits: (wait: ApprovalWait) => void = () => undefined,
  ) {
    const { callModel } = proxyActivities<Activities>(
      modelActivityOptions(input.maxAttempts, heartbeatTimeoutOf(input, 'model')),
    );
    const { runVerification } = proxyActivities<Activities>({
      startToCloseTimeout: input.verifyTimeoutMs + 60_000,
      heartbeatTimeout: heartbeatTimeoutOf(input, 'verification'),
      retry: { initialInterval: '1s', maximumAttempts: 3 },
    });
    this.activities = { callModel, runVerification };
  }

  get progress(): StagedProgress {
    const notices = this.notices.length > 0 ? { notices: [...this.notices] } : {};
    return { phase: this.phase, plan: this.plan, stages: this.stages, verifications: this.verifications, ...notices };
  }

  /** The plan-only turn: one model call offered no tool that writes. An unusable plan is the task as one stage. */
  async makePlan(): Promise<void> {
    const request: ModelRequest = {
      system: 'staged_plan',
      messages: [
        { role: 'user', content: withPriorScratchpad(buildPlanPrompt(this.input.task), this.input.priorScratchpad) },
      ],
      tools: PLAN_TOOLS,
      toolChoice: 'any',
      model: this.input.model,
    };
    const response = await callModelThroughList(this.activities.callModel, request, (line) => this.notices.push(line));
    this.usage = addUsage(this.usage, response.usage);
    const parsed = parseAction(response);
    const args = parsed.ok && parsed.action.tool === 'plan' ? parsed.action.args : {};
    this.notes = scratchpadFromArgs(args) ?? this.notes;
    const plan = parsePlan(args);
    // A model that ignores the plan tool must not pass unnoticed: the run says it went on as one stage.
    if (!plan) this.notices.push(NO_PLAN_NOTICE);
    this.plan = plan ?? [this.input.task];
  }

  /** Runs one stage, sending it back with the correction while it claims completion having changed nothing. */
  async runStage(spec: StageSpec): Promise<StageRecord> {
    let correction: string | undefined;
    for (let attempt = 0; ; attempt++) {
      const label = attempt === 0 ? spec.label : `${spec.label}-retry-${attempt}`;
      const kind = attempt === 0 ? spec.kind : 'correction';
      const record = await this.runCycle(spec, label, kind, correction, attempt === 0 && spec.storedOutput);
      const noOp = record.outcome === 'completed' && record.touchedPaths.length === 0;
      if (!noOp || attempt >= this.input.maxCorrections || this.failure) {
        if (attempt > 0) record.corrections = attempt;
        return record;
      }
      correction = NO_OP_CORRECTION;
    }
  }

  private async runCycle(
    spec: StageSpec,
    label: string,
    kind: StageRecord['kind'],
    correction: string | undefined,
    canReadOutput: boolean | undefined,
  ): Promise<StageRecord> {
    const cycleId = stageCycleId(this.runId, label);
    const stageContext = buildStageContext({
      task: this.input.task,
      plan: this.plan,
      index: spec.index,
      stage: spec.stage,
      notes: this.notes,
      maxPaths: this.input.maxPaths,
      correction,
    });
    // Fresh context: a new scratchpad holding only this stage; the stage context carries the rest.
    const input: StageCycleInput & { cycleId: string } = {
      agentId: this.input.agentId,
      cycleId,
      before: enqueueTasks(defaultScratchpad(this.input.task.slice(0, 500)), [spec.stage.slice(0, 2000)]),
      maxIterations: this.input.maxIterations,
      model: this.input.model,
      tools: canReadOutput ? [...STAGE_TOOLS, SCRATCHPAD_READ] : STAGE_TOOLS,
      maxAttempts: this.input.maxAttempts,
      ...(this.input.heartbeatTimeoutMs && { heartbeatTimeoutMs: this.input.heartbeatTimeoutMs }),
      priorScratchpad: this.input.priorScratchpad,
      stage: { context: stageContext, maxPaths: this.input.maxPaths },
    };
    const child = await new ChildCycle<StageCycleInput, StageCycleResult>({
      workflowType: 'stageCycle',
      input,
      summary: `stage ${label}: ${spec.stage}`,
      description: {
        name: 'stage of a staged run',
        tail: [`### Stage context\n${headCodePoints(stageContext, QUOTE_POINTS)}`],
      },
      approvalWaits: this.approvalWaits,
    }).run();
    // A stage whose cycle could not run fails the run, as a failed activity would.
    if (!('result' in child)) {
      this.failure = `${label} did not run: ${'error' in child ? child.error : 'cancelled'}`;
      return { kind, stage: spec.stage, cycleId, outcome: 'failed', touchedPaths: [], refusedPaths: [] };
    }
    const { result } = child;
    this.usage = addUsage(this.usage, result.usage);
    if (result.runNotes !== undefined) this.notes = result.runNotes;
    for (const path of result.touchedPaths ?? []) if (!this.files.includes(path)) this.files.push(path);
    for (const file of result.stageFiles ?? []) this.keepFile(file);
    if (result.outcome === 'failed') this.failure = `${label} failed: ${result.error ?? 'unknown error'}`;
    const record: StageRecord = {
      kind,
      stage: spec.stage,
      cycleId,
      outcome: result.outcome,
      touchedPaths: result.touchedPaths ?? [],
      refusedPaths: result.refusedPaths ?? [],
      change: stageChange(result.touchedPaths ?? []),
    };
    this.stages.push(record);
    return record;
  }

  private keepFile(file: StageFile): void {
    const index = this.stageFiles.findIndex((known) => known.path === file.path);
    if (index >= 0) this.stageFiles.splice(index, 1);
    else if (this.stageFiles.length >= MAX_STAGE_FILES) return;
    this.stageFiles.push(file);
  }

  /**
   * Runs the verification command after restoring the stages' files into the sandbox of whichever worker runs it;
   * its output is stored for `readerLabel`, the repair stage that would read it.
   */
  async verify(command: string, readerLabel: string): Promise<Verification> {
    const verification = await this.activities.runVerification({
      agentId: this.input.agentId,
      turnId: stageCycleId(this.runId, readerLabel),
      command,
      timeoutMs: this.input.verifyTimeoutMs,
      ...(this.stageFiles.length > 0 ? { files: this.stageFiles } : {}),
    });
    this.verifications.push(verification);
    return verification;
  }
}
