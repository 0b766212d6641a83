import { isCancellation, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { NO_CHANGE_NOTICE, shouldStage, stagedOutcome, repairStage, type StagedOutcome } from '../../core/staged/rules';
import { type StagedInput, StagedInputSchema, type StagedResult } from '../../core/staged/input';
import { stagedProgressQuery } from '../../common/messages/staged';
import { cycleOutcomeKey } from '../../common/search-attributes';
import { failureMessage } from '../../common/failure';
import { StagedError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import { StagedRun } from './staged-run';
import { WaitingCalls } from '../cycle/approval-notices';
import { recordOutcomeMemo } from '../cycle/run-details';
import { stagedDetails, stagedOutcomeLine } from './staged-details';

/**
 * A staged run (design.md, Staged runs): an optional plan-only turn, then each stage as a child cycle with fresh
 * context and a cap on touched paths, no-op stages corrected, then verification and bounded repairs. The model's
 * "done" is never the outcome: `verified` needs a verification that ran and passed.
 */
export async function stagedTask(rawInput: StagedInput): Promise<StagedResult> {
  const input = parseWorkflowInput(StagedInputSchema(), rawInput, StagedError.BadInput, 'staged input');
  const runId = workflowInfo().workflowId;
  // A stage's cycle tells this run when one of its calls waits for a person: the progress says which stage waits.
  const approvals = new WaitingCalls();
  const run = new StagedRun(input, runId, (wait) => approvals.receive(wait));
  const staged = shouldStage(input.task, input.staged);
  let outcome: StagedOutcome = 'failed';
  let reason: string;
  let error: string | undefined;
  setHandler(stagedProgressQuery, () => {
    const waiting = approvals.pending();
    return {
      ...run.progress,
      ...(waiting.length > 0 ? { approvals: waiting } : {}),
      ...(run.phase === 'done' ? { outcome } : {}),
    };
  });
  try {
    ({ outcome, reason } = await drive(run, staged));
  } catch (err) {
    if (isCancellation(err)) {
      // The list shows it cancelled, not the `CycleOutcome` it never set.
      recordEnd(run, 'cancelled', 'the run was cancelled');
      upsertSearchAttributes([{ key: cycleOutcomeKey, value: 'cancelled' }]);
      throw err;
    }
    error = failureMessage(err);
    reason = `the run failed: ${error}`;
  }
  // A run whose stages changed nothing says so in its outcome line, whatever verification made of it.
  if (run.stages.length > 0 && run.stages.every((stage) => stage.touchedPaths.length === 0)) {
    run.notices.push(NO_CHANGE_NOTICE);
    reason = `${reason}; ${NO_CHANGE_NOTICE}`;
  }
  run.phase = 'done';
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: outcome }]);
  recordEnd(run, outcome, reason);
  return {
    agentId: input.agentId,
    runId,
    outcome,
    reason,
    staged,
    plan: run.plan,
    stages: run.stages,
    verifications: run.verifications,
    files: run.files,
    ...(run.stageFiles.length > 0 ? { stageFiles: run.stageFiles } : {}),
    ...(run.notes !== undefined ? { scratchpad: run.notes } : {}),
    usage: run.usage,
    ...(error ? { error } : {}),
    ...(run.notices.length > 0 ? { notices: [...run.notices] } : {}),
  };
}

/** The outcome line and details in the memo, for the Web UI with no worker running. */
function recordEnd(run: StagedRun, outcome: string, reason: string): void {
  const { plan, stages, verifications, files, notices } = run;
  const end = {
    runId: run.runId,
    agentId: run.input.agentId,
    outcome,
    reason,
    plan,
    stages,
    verifications,
    files,
    notices,
  };
  recordOutcomeMemo(stagedOutcomeLine(end), stagedDetails(end));
}

async function drive(run: StagedRun, staged: boolean): Promise<{ outcome: StagedOutcome; reason: string }> {
  const { input } = run;
  if (staged) await run.makePlan();
  else run.plan = [input.task];
  run.phase = 'stages';
  for (const [offset, stage] of run.plan.entries()) {
    await run.runStage({ kind: 'stage', stage, index: offset + 1, label: `stage-${offset + 1}` });
    if (run.failure) return { outcome: 'failed', reason: run.failure };
  }
  // STAGED_DONE: the model has said its piece; only verification can turn that into `verified`.
  if (input.verify === undefined) {
    return { outcome: stagedOutcome('none'), reason: 'the stages finished but no verification command was given' };
  }
  for (let repair = 1; ; repair++) {
    run.phase = 'verifying';
    const verification = await run.verify(input.verify, `repair-${repair}`);
    if (verification.passed) return { outcome: stagedOutcome('passed'), reason: `\`${input.verify}\` passed` };
    if (repair > input.maxRepairs) {
      return {
        outcome: stagedOutcome('failed'),
        reason: `\`${input.verify}\` still fails after ${input.maxRepairs} repair stage(s)`,
      };
    }
    run.phase = 'repairing';
    const stage = repairStage(input.verify, verification.output);
    await run.runStage({ kind: 'repair', stage, label: `repair-${repair}`, storedOutput: !!verification.scratchpadId });
    if (run.failure) return { outcome: 'failed', reason: run.failure };
  }
}
