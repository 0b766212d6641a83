import { z } from 'zod';
import { UsageSchema } from '../cycle/model';
import { DEFAULT_MAX_PATHS } from './rules';
import { getterOf } from '../shareable';
import { HeartbeatTimeoutsSchema } from '../cycle/liveness';
import { type CycleResult, cycleInputShape } from '../cycle/input';

/** Input of one `stagedTask` workflow. */
export const StagedInputSchema = getterOf(
  z.object({
    agentId: z.string().min(1),
    task: z.string().min(1).max(20_000),
    /** Shell command line run in the sandbox after the stages; without one the best outcome is `unverified`. */
    verify: z.string().min(1).max(4000).optional(),
    /** `true`: always plan first; `false`: never; absent: the service/API/database/dependency rule decides. */
    staged: z.boolean().optional(),
    maxPaths: z.number().int().min(1).max(50).default(DEFAULT_MAX_PATHS),
    maxRepairs: z.number().int().min(0).max(10).default(2),
    /** How many times a stage that changed nothing is sent back with the correction. */
    maxCorrections: z.number().int().min(0).max(5).default(2),
    /** Iterations of each stage's cycle. */
    maxIterations: z.number().int().min(1).max(100).default(10),
    verifyTimeoutMs: z.number().int().min(1000).max(3_600_000).default(120_000),
    /** Text of a prior scratchpad (the CLI resolves a path or `last` to it). */
    priorScratchpad: z.string().max(1_000_000).optional(),
    model: z.string().optional(),
    maxAttempts: z.number().int().min(1).max(20).default(5),
    /** Heartbeat timeouts by activity kind, for the plan turn and the verification (core/cycle/liveness.ts). */
    heartbeatTimeoutMs: HeartbeatTimeoutsSchema().optional(),
  }),
);
export type StagedInput = z.input<ReturnType<typeof StagedInputSchema>>;
export type ParsedStagedInput = z.output<ReturnType<typeof StagedInputSchema>>;

export const StagedOutcomeSchema = getterOf(z.enum(['verified', 'unverified', 'failed']));

/** What one verification run found; large output is kept in the observation store and only excerpted here. */
export const VerificationSchema = getterOf(
  z.object({
    command: z.string(),
    passed: z.boolean(),
    exitCode: z.number().nullable(),
    timedOut: z.boolean(),
    /** The output as the model sees it: whole when small, else the stored observation's summary and id. */
    output: z.string(),
    scratchpadId: z.string().optional(),
  }),
);
export type Verification = z.infer<ReturnType<typeof VerificationSchema>>;

/** Most files a staged run keeps references to (newest per path); writes to further paths do not travel. */
export const MAX_STAGE_FILES = 100;

/**
 * A file a stage wrote, by reference: its sandbox-relative path and where its content sits in the observation store
 * (with its sha256), so verification on any worker can restore it. Never the content: that stays out of history.
 */
export const StageFileSchema = getterOf(
  z.object({
    path: z.string().min(1).max(4096),
    contentId: z.string().regex(/^[0-9a-f]{16}$/),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
);
export type StageFile = z.infer<ReturnType<typeof StageFileSchema>>;

export const StageRecordSchema = getterOf(
  z.object({
    kind: z.enum(['stage', 'correction', 'repair']),
    stage: z.string(),
    cycleId: z.string(),
    outcome: z.string(),
    touchedPaths: z.array(z.string()),
    refusedPaths: z.array(z.string()),
    /** Whether this attempt changed files (absent from runs before it: read `touchedPaths`). */
    change: z.enum(['changed', 'no_change']).optional(),
    /** On a stage's last attempt: how many corrections it took, when it took any. */
    corrections: z.number().int().min(1).optional(),
  }),
);
export type StageRecord = z.infer<ReturnType<typeof StageRecordSchema>>;

/** Result of a staged run: the outcome is machine-visible here, in `CycleOutcome`, and in the CLI's exit code. */
export const StagedResultSchema = getterOf(
  z.object({
    agentId: z.string(),
    runId: z.string(),
    outcome: StagedOutcomeSchema(),
    /** Why the outcome is what it is, in one line. */
    reason: z.string(),
    staged: z.boolean(),
    plan: z.array(z.string()),
    stages: z.array(StageRecordSchema()),
    verifications: z.array(VerificationSchema()),
    /** Every path the stages wrote; the files stay in the sandbox whatever the outcome. */
    files: z.array(z.string()),
    /** Where the newest content of each written path is stored (at most {@link MAX_STAGE_FILES}). */
    stageFiles: z.array(StageFileSchema()).optional(),
    /** The model's last run-local notes; what `--prior-scratchpad last` reads. */
    scratchpad: z.string().optional(),
    usage: UsageSchema(),
    error: z.string().optional(),
    /** What happened that the stages alone do not say: no plan, no stage that changed anything. */
    notices: z.array(z.string()).optional(),
  }),
);
export type StagedResult = z.infer<ReturnType<typeof StagedResultSchema>>;

/** Input of one `stageCycle` workflow: the base input and the stage's context and cap on written paths. */
export const StageCycleInputSchema = getterOf(
  z.strictObject({
    ...cycleInputShape(),
    /** The run's task, plan, this stage and notes, appended to the user message; the cap on written paths. */
    stage: z.object({ context: z.string().max(200_000), maxPaths: z.number().int().min(1).max(50) }),
  }),
);
export type StageCycleInput = z.input<ReturnType<typeof StageCycleInputSchema>>;
export type ParsedStageCycleInput = z.output<ReturnType<typeof StageCycleInputSchema>>;

/** A stage's result: the cycle's, with the paths it wrote and the cap refused, and where its files are stored. */
export type StageCycleResult = CycleResult & {
  touchedPaths: string[];
  refusedPaths?: string[];
  stageFiles?: StageFile[];
};
