import type { StageRecord, Verification } from '../../core/staged/input';
import { headCodePoints, tailCodePoints } from '../../core/text';
import { outcomeLine, withinSections } from '../cycle/details-text';

/** One line of a list: whitespace folded, capped. */
function line(text: string, points = 300): string {
  return headCodePoints(text.replace(/\s+/g, ' ').trim(), points);
}

/** How a staged run ended, for its memo. */
export interface StagedEnd {
  runId: string;
  agentId: string;
  outcome: string;
  reason: string;
  plan: readonly string[];
  stages: readonly StageRecord[];
  verifications: readonly Verification[];
  files: readonly string[];
  notices: readonly string[];
}

function stageLine(stage: StageRecord): string {
  const label = stage.cycleId.slice(stage.cycleId.lastIndexOf('/') + 1);
  const touched = stage.touchedPaths.length > 0 ? `wrote ${stage.touchedPaths.join(', ')}` : 'changed nothing';
  const refused = stage.refusedPaths.length > 0 ? `; refused ${stage.refusedPaths.join(', ')}` : '';
  const corrections = stage.corrections ? ` after ${stage.corrections} correction(s)` : '';
  return `- **${label}** ${stage.outcome}${corrections}: ${line(`${touched}${refused}`, 500)}`;
}

function verificationLines(verification: Verification, index: number): string {
  const how = verification.timedOut ? 'timed out' : `exit ${verification.exitCode ?? 'none'}`;
  const output = tailCodePoints(verification.output.trim(), 1500);
  const verdict = verification.passed ? 'passed' : 'failed';
  const block = output ? `\n\n\`\`\`\n${output.replace(/```/g, "'''")}\n\`\`\`` : '';
  return `#### ${index + 1}. \`${line(verification.command, 500)}\` ${verdict} (${how})${block}`;
}

/**
 * The staged run's details at its end: the outcome line first (`verified: …`, `unverified: …`, `failed: …`), then
 * plan, stages, verifications, files and notices, whole sections within the cap.
 */
export function stagedDetails(end: StagedEnd): string {
  const head = `${stagedOutcomeLine(end)}\n\n**staged run** \`${end.runId}\` of agent \`${end.agentId}\``;
  const sections = [head];
  if (end.notices.length > 0)
    sections.push(`### Notices\n${end.notices.map((notice) => `- ${line(notice)}`).join('\n')}`);
  const planned = end.plan.map((stage, index) => `${index + 1}. ${line(stage, 500)}`);
  sections.push(`### Plan (${end.plan.length})\n${planned.join('\n') || '(none)'}`);
  sections.push(`### Stages (${end.stages.length})\n${end.stages.map(stageLine).join('\n') || '(none ran)'}`);
  const verifications = end.verifications.map(verificationLines);
  sections.push(`### Verifications (${end.verifications.length})\n${verifications.join('\n\n') || '(none ran)'}`);
  if (end.files.length > 0)
    sections.push(`### Files (${end.files.length})\n${end.files.map((file) => `- ${file}`).join('\n')}`);
  return withinSections(sections);
}

/** The staged run's outcome in words, on one line. */
export function stagedOutcomeLine(end: Pick<StagedEnd, 'outcome' | 'reason'>): string {
  return outcomeLine(end.outcome, end.reason);
}
