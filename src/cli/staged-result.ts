import type { StageRecord, StagedResult } from '../core/staged/input';

/** One stage attempt: its outcome, `changed` with the paths or `no_change` (after how many corrections), refusals. */
function stageLine(stage: StageRecord): string {
  const change = stage.change ?? (stage.touchedPaths.length > 0 ? 'changed' : 'no_change');
  const what = change === 'changed' ? `changed ${stage.touchedPaths.join(', ')}` : 'no_change';
  const corrections = stage.corrections ? ` after ${stage.corrections} correction(s)` : '';
  const refused = stage.refusedPaths.length > 0 ? `; refused paths ${stage.refusedPaths.join(', ')}` : '';
  return `${stage.outcome}, ${what}${corrections}${refused}`;
}

/** Human-readable lines of a staged run's result. */
export function describeStaged(workflowId: string, result: StagedResult, sandbox: string): string[] {
  return [
    `Staged run ${workflowId}: ${result.outcome} — ${result.reason}`,
    ...(result.staged ? ['Plan:', ...result.plan.map((stage, i) => `  ${i + 1}. ${stage}`)] : []),
    ...(result.notices ?? []).map((notice) => `Note: ${notice}`),
    'Stages:',
    ...result.stages.map(
      (stage) => `  ${stage.cycleId.slice(workflowId.length + 1)} (${stage.kind}): ${stageLine(stage)}`,
    ),
    ...result.verifications.map(
      (verification, i) =>
        `Verification ${i + 1}: \`${verification.command}\` ${verification.passed ? 'passed' : 'failed'}`,
    ),
    `Files (in ${sandbox}): ${result.files.join(', ') || 'none'}`,
    ...(result.scratchpad ? [`Scratchpad: ${result.scratchpad.slice(0, 500)}`] : []),
    ...(result.error ? [`Error: ${result.error}`] : []),
  ];
}
