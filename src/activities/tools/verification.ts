import { z } from 'zod';
import { isStoredObservation, type Observation, observationText } from '../../core/tools/observation';
import { MAX_STAGE_FILES, StageFileSchema, type Verification } from '../../core/staged/input';
import { recordObservation } from './run-tool';
import type { ObservationRuntime } from '../observations/runtime';
import { ensureSandboxRoot } from './sandbox';
import { runConfined } from './confined';
import { restoreStageFiles } from './stage-files';
import { heartbeating } from '../heartbeat';

/** What `runVerification` is asked to run: bounds as a staged run's input. */
export const VerificationRequestSchema = z.object({
  agentId: z.string().min(1).max(1000),
  /** The cycle that will read the output (the next repair stage), so its `scratchpad_read` may reach it. */
  turnId: z.string().min(1).max(1000),
  command: z.string().min(1).max(4000),
  timeoutMs: z.number().int().min(1000).max(3_600_000),
  /** The files the run's stages wrote, by reference: restored into this worker's sandbox before the command runs. */
  files: z.array(StageFileSchema()).max(MAX_STAGE_FILES).optional(),
});
export type VerificationRequest = z.infer<typeof VerificationRequestSchema>;

/**
 * A staged run's verification (design.md, Verification and outcomes): the files the stages wrote are restored from
 * the store (this worker may not be the one that wrote them), then the command runs as `sh -c` under the confined
 * runner in the sandbox, with a timeout. Its output is an observation like any tool's, so a large one goes to the
 * store and only its excerpt returns.
 */
export async function runVerification(
  request: VerificationRequest,
  sandboxRoot: string,
  runtime: ObservationRuntime,
): Promise<Verification> {
  const root = await ensureSandboxRoot(sandboxRoot);
  // A store that does not answer throws here: the activity is retried rather than verifying without the files.
  const missing = await restoreStageFiles(request.files ?? [], root, runtime);
  let observation: Observation = { ok: false, error: 'verification did not run' };
  let exitCode: number | null = null;
  let timedOut = false;
  await heartbeating(async (signal) => {
    try {
      if (missing.length > 0) throw new Error(`the stages' files could not all be restored: ${missing.join('; ')}`);
      const run = await runConfined({
        root,
        argv: ['sh', '-c', request.command],
        timeoutMs: request.timeoutMs,
        signal,
      });
      // Killed because the activity was cancelled (its worker shutting down): no verdict, so another attempt runs.
      signal?.throwIfAborted();
      ({ exitCode, timedOut } = run);
      const passed = exitCode === 0 && !timedOut;
      const cleared = run.cleared.length > 0 ? { setuid_bits_cleared: run.cleared } : {};
      const result = { exit_code: exitCode, stdout: run.stdout, stderr: run.stderr, ...cleared };
      const error = timedOut
        ? `timed out after ${request.timeoutMs} ms; the process was killed`
        : exitCode === null
          ? `killed by ${run.signal ?? 'a signal'}`
          : `exited with code ${exitCode}`;
      observation = passed ? { ok: true, result } : { ok: false, result, error };
      if (run.truncated) observation = { ...observation, truncated: true };
    } catch (error) {
      if (signal?.aborted) throw error;
      observation = { ok: false, error: `verification could not run: ${(error as Error).message}` };
    }
  });
  const call = { cycleId: request.turnId, step: 0, name: 'verify', args: {}, agentId: request.agentId };
  const recorded = await recordObservation(call, observation, runtime);
  const stored = isStoredObservation(recorded) ? String(recorded.scratchpad_id) : undefined;
  return {
    command: request.command,
    passed: observation.ok,
    exitCode,
    timedOut,
    // Failed output reads as the model would see a failed tool: the error, then what the command printed.
    output: stored ? observationText(recorded) : describe(observation),
    ...(stored ? { scratchpadId: stored } : {}),
  };
}

function describe(observation: Observation): string {
  const result = observation.result as
    { exit_code?: number | null; stdout?: string; stderr?: string; setuid_bits_cleared?: string[] } | undefined;
  const head = observation.ok ? 'passed' : (observation.error ?? 'failed');
  if (!result) return head;
  const cleared = result.setuid_bits_cleared?.join(', ');
  return [
    head,
    result.stdout ? `stdout:\n${result.stdout}` : '',
    result.stderr ? `stderr:\n${result.stderr}` : '',
    cleared ? `setuid/setgid bits cleared afterwards: ${cleared}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
