import type { AgentHistory, HistorySize } from './context-history';
import type { CycleMeasure } from './context-cycles';
import { type PromptSize, sizeOf } from './context-prompts';
import { median } from './measure';

/** The target: at the last turn, at most this many times the size at the reference turn. */
export const GROWTH_TARGET = 1.5;
/** The turn the last one is compared with. */
export const REFERENCE_TURN = 10;

/** What was measured, as the report's builder takes it. */
export interface ContextMeasurements {
  turns: number;
  budgetChars: number;
  defaultBudgetChars: number;
  server: string;
  archiveContentRegistered: boolean;
  /** Per completed turn, as the scripted model received them. */
  respondChars: number[];
  reflectChars: number[];
  /** Per completed turn: the usual chat loop's prompt for the same inputs and replies. */
  transcriptChars: number[];
  cycles: CycleMeasure[];
  agent?: AgentHistory;
  error?: string;
}

/** One row of the table: sizes at one turn. */
export interface Checkpoint {
  turn: number;
  scratchpadPrompt: PromptSize;
  transcriptPrompt: PromptSize;
  reflectPrompt: PromptSize;
  renderedScratchpadAfter: number;
  cycleHistoryBytes: number;
  agentHistoryBytes: number | null;
}

/** The smallest, median and largest of a list of sizes. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** One target and whether it was met. */
export interface Check {
  name: string;
  /** The measured ratio (or count); null when the run stopped before it could be measured. */
  value: number | null;
  pass: boolean;
}

/** Everything the benchmark prints. */
export interface ContextReport {
  turns: number;
  completedTurns: number;
  budgetChars: number;
  server: string;
  archiveContentRegistered: boolean;
  checkpoints: Checkpoint[];
  growth: { scratchpadPrompt: number | null; transcriptPrompt: number | null };
  transcriptCharsPerTurn: number | null;
  cycleHistoryBytes: Spread | null;
  agentHistoryBytesPerTurn: Spread | null;
  agentRuns: (HistorySize & { runId: string })[];
  continueAsNew: HistorySize | null;
  totalTokens: { scratchpadRespond: number; scratchpadReflect: number; transcript: number };
  archive: { cuts: number; chars: number };
  reflectionsRejected: number;
  /** The first turn whose reflect update did not land, and why. */
  firstRejection: { turn: number; reason: string } | null;
  /** Characters of the rendered scratchpad after each turn. */
  renderedScratchpad: Spread | null;
  checks: Check[];
  pass: boolean;
  error?: string;
}

/** The turns the table shows: 1, 10, 50, 100 within the run, and always the last turn. */
export function checkpointTurns(turns: number): number[] {
  return [...new Set([1, REFERENCE_TURN, 50, 100, turns])].filter((turn) => turn <= turns).sort((a, b) => a - b);
}

function spread(values: readonly number[]): Spread | null {
  return values.length === 0 ? null : { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** `values[last] / values[reference]` (turns count from 1), or null when either turn was not reached. */
function growth(values: readonly (number | undefined)[], last: number): number | null {
  const reference = values[REFERENCE_TURN - 1];
  const final = values[last - 1];
  return reference && final !== undefined ? final / reference : null;
}

function checkpointAt(measured: ContextMeasurements, turn: number): Checkpoint {
  const index = turn - 1;
  const cycle = measured.cycles[index]!;
  return {
    turn,
    scratchpadPrompt: sizeOf(measured.respondChars[index]!),
    transcriptPrompt: sizeOf(measured.transcriptChars[index]!),
    reflectPrompt: sizeOf(measured.reflectChars[index]!),
    renderedScratchpadAfter: cycle.renderedAfter,
    cycleHistoryBytes: cycle.history.bytes,
    agentHistoryBytes: measured.agent?.perTurn[index]?.bytes ?? null,
  };
}

function firstRejection(cycles: readonly CycleMeasure[]): { turn: number; reason: string } | null {
  const index = cycles.findIndex((cycle) => !cycle.reflectionApplied);
  return index < 0 ? null : { turn: index + 1, reason: cycles[index]!.rejection ?? 'no rejection note found' };
}

function growthCheck(name: string, value: number | null): Check {
  return { name, value, pass: value !== null && value <= GROWTH_TARGET };
}

function checksOf(measured: ContextMeasurements, completed: number): Check[] {
  const last = measured.turns;
  const agentBytes = measured.agent?.perTurn.map((turn) => turn.bytes) ?? [];
  const versus = (unit: string) => `≤ ${GROWTH_TARGET}× ${unit} ${REFERENCE_TURN}`;
  return [
    { name: `all ${last} turns completed`, value: completed, pass: completed === last && !measured.error },
    {
      name: `default budget (${measured.defaultBudgetChars} chars)`,
      value: measured.budgetChars,
      pass: measured.budgetChars === measured.defaultBudgetChars,
    },
    growthCheck(`scratchpad prompt at turn ${last} ${versus('turn')}`, growth(measured.respondChars, last)),
    growthCheck(
      `cycle history bytes at cycle ${last} ${versus('cycle')}`,
      growth(
        measured.cycles.map((cycle) => cycle.history.bytes),
        last,
      ),
    ),
    growthCheck(`agent history bytes of turn ${last} ${versus('turn')}`, growth(agentBytes, last)),
  ];
}

/** Puts the checkpoints, spreads, totals and the verdict together. */
export function buildContextReport(measured: ContextMeasurements): ContextReport {
  const completed = measured.cycles.length;
  const last = measured.turns;
  const { transcriptChars: transcript } = measured;
  const checks = checksOf(measured, completed);
  const reachedLast = transcript.length >= last && last > REFERENCE_TURN;
  return {
    turns: last,
    completedTurns: completed,
    budgetChars: measured.budgetChars,
    server: measured.server,
    archiveContentRegistered: measured.archiveContentRegistered,
    checkpoints: checkpointTurns(last)
      .filter((turn) => turn <= completed)
      .map((turn) => checkpointAt(measured, turn)),
    growth: { scratchpadPrompt: growth(measured.respondChars, last), transcriptPrompt: growth(transcript, last) },
    transcriptCharsPerTurn: reachedLast
      ? (transcript[last - 1]! - transcript[REFERENCE_TURN - 1]!) / (last - REFERENCE_TURN)
      : null,
    cycleHistoryBytes: spread(measured.cycles.map((cycle) => cycle.history.bytes)),
    agentHistoryBytesPerTurn: spread(measured.agent?.perTurn.map((turn) => turn.bytes) ?? []),
    agentRuns: measured.agent?.runs ?? [],
    continueAsNew: measured.agent?.continueAsNew ?? null,
    totalTokens: {
      scratchpadRespond: sizeOf(sum(measured.respondChars)).tokens,
      scratchpadReflect: sizeOf(sum(measured.reflectChars)).tokens,
      transcript: sizeOf(sum(transcript)).tokens,
    },
    archive: {
      cuts: sum(measured.cycles.map((cycle) => cycle.archiveCuts)),
      chars: sum(measured.cycles.map((cycle) => cycle.archivedChars)),
    },
    reflectionsRejected: measured.cycles.filter((cycle) => !cycle.reflectionApplied).length,
    firstRejection: firstRejection(measured.cycles),
    renderedScratchpad: spread(measured.cycles.map((cycle) => cycle.renderedAfter)),
    checks,
    pass: checks.every((check) => check.pass),
    ...(measured.error ? { error: measured.error } : {}),
  };
}
