import type { Check, Checkpoint, ContextReport, Spread } from './context-report';
import { table } from './measure';

function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function ratio(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(2)}×`;
}

function spreadText(value: Spread | null): string {
  return value ? `min ${count(value.min)}, median ${count(value.median)}, max ${count(value.max)}` : 'n/a';
}

function checkpointRow(row: Checkpoint): string[] {
  return [
    String(row.turn),
    count(row.scratchpadPrompt.chars),
    count(row.scratchpadPrompt.tokens),
    count(row.transcriptPrompt.chars),
    count(row.transcriptPrompt.tokens),
    ratio(row.transcriptPrompt.chars / row.scratchpadPrompt.chars),
    count(row.reflectPrompt.chars),
    count(row.renderedScratchpadAfter),
    count(row.cycleHistoryBytes),
    row.agentHistoryBytes === null ? 'n/a' : count(row.agentHistoryBytes),
  ];
}

function checkpointTable(report: ContextReport): string {
  return table([
    [
      'turn',
      'scratchpad chars',
      '~tokens',
      'transcript chars',
      '~tokens',
      'transcript/scratchpad',
      'reflect prompt chars',
      'scratchpad rendered after',
      'cycle history B',
      'agent history B',
    ],
    ...report.checkpoints.map(checkpointRow),
  ]);
}

function checkLine(check: Check): string {
  const value = check.value === null ? 'n/a' : Number.isInteger(check.value) ? String(check.value) : ratio(check.value);
  return `${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${value}`;
}

function historyLines(report: ContextReport): string[] {
  const runs = report.agentRuns.map((run) => `${count(run.bytes)} B / ${count(run.events)} events`).join('; ');
  return [
    `cycle workflow history bytes per cycle: ${spreadText(report.cycleHistoryBytes)}`,
    `agent workflow history bytes per turn:  ${spreadText(report.agentHistoryBytesPerTurn)}`,
    `agent workflow runs: ${report.agentRuns.length} (${runs || 'none fetched'}); continue-as-new events: ${
      report.continueAsNew ? `${count(report.continueAsNew.bytes)} B` : 'n/a'
    }`,
  ];
}

function summaryLines(report: ContextReport): string[] {
  const { totalTokens: tokens } = report;
  const perTurn = report.transcriptCharsPerTurn;
  return [
    `growth turn ${report.turns} / turn 10: scratchpad prompt ${ratio(report.growth.scratchpadPrompt)}, transcript ${ratio(
      report.growth.transcriptPrompt,
    )}${perTurn === null ? '' : ` (+${count(perTurn)} chars per turn)`}`,
    ...historyLines(report),
    `tokens sent over ${report.completedTurns} turns: scratchpad ~${count(tokens.scratchpadRespond + tokens.scratchpadReflect)} ` +
      `(respond ~${count(tokens.scratchpadRespond)} + reflect ~${count(tokens.scratchpadReflect)}), transcript ~${count(tokens.transcript)}`,
    `scratchpad rendered after each turn: ${spreadText(report.renderedScratchpad)} (budget ${count(report.budgetChars)})`,
    `budget: ${report.archive.cuts} archive cuts moved ${count(report.archive.chars)} chars to the observation store`,
    `reflect updates that did not land: ${report.reflectionsRejected} of ${report.completedTurns}${
      report.firstRejection ? ` (first at turn ${report.firstRejection.turn}: ${report.firstRejection.reason})` : ''
    }`,
  ];
}

/** The human-readable report: settings, the checkpoint table, the history spreads, the checks and the verdict. */
export function formatContextReport(report: ContextReport): string {
  return [
    `context size: ${report.turns} scripted chat turns through the agent workflow (send update, respond then reflect)`,
    `versus the same turns as a growing transcript; budget ${report.budgetChars} chars; server: ${report.server}`,
    `prompt = system prompt + every message the model was sent (respond phase); tokens ≈ chars / 4`,
    ...(report.archiveContentRegistered ? [] : ['archiveContent: NOT registered on the worker (src/activities)']),
    '',
    checkpointTable(report),
    '',
    ...summaryLines(report),
    '',
    ...report.checks.map(checkLine),
    ...(report.error ? [`error: ${report.error}`] : []),
    `verdict: ${report.pass ? 'PASS' : 'FAIL'}`,
  ].join('\n');
}
