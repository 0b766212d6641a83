import type { Arm } from './cost-arms';
import type { BilledCall } from './cost-stand-in';
import { table } from './measure';

/** Turns a per-turn figure is averaged over: a turn that cuts Known rewrites the cache, and stands out alone. */
export const WINDOW = 10;
/** The goals for the project with its defaults, against the anchor. */
export const GOALS = { perTurnFrom: 100, cumulativeBy: 200, atTurn: 300, ratioAt: 0.35 } as const;

/** One arm's cost, per turn and summed, in the main model's uncached input tokens. */
export interface ArmCurve {
  arm: Arm;
  perTurn: number[];
  /** {@link perTurn} averaged over the last {@link WINDOW} turns. */
  perTurnMean: number[];
  cumulative: number[];
  /** Summed over the run, as billed: uncached input, cache reads and cache writes, in tokens. */
  tokens: { input: number; read: number; written: number };
  calls: number;
}

/** A target and whether it was met. */
export interface CostCheck {
  name: string;
  value: string;
  pass: boolean;
}

export interface CostReport {
  turns: number;
  gapSeconds: number;
  server: string;
  checkpoints: number[];
  anchor: ArmCurve;
  arms: { curve: ArmCurve; perTurnFrom: number | null; cumulativeFrom: number | null; ratioAtLast: number }[];
  checks: CostCheck[];
  errors: string[];
  pass: boolean;
}

/** The mean of each value and the `window - 1` before it (fewer at the start). */
export function rollingMean(values: readonly number[], window = WINDOW): number[] {
  return values.map((_, index) => {
    const slice = values.slice(Math.max(0, index - window + 1), index + 1);
    return slice.reduce((sum, value) => sum + value, 0) / slice.length;
  });
}

/** The first turn (1-based) from which `values` stay at or below `anchor` to the end; null when the last is above. */
export function fromTurn(values: readonly number[], anchor: readonly number[]): number | null {
  let from: number | null = null;
  values.forEach((value, index) => {
    if (value > anchor[index]!) from = null;
    else from ??= index + 1;
  });
  return from;
}

/** Each arm's curve from the stand-in's bills. */
export function armCurve(arm: Arm, calls: readonly BilledCall[], turns: number): ArmCurve {
  const own = calls.filter((call) => call.account === arm.account);
  const perTurn = Array.from({ length: turns }, () => 0);
  for (const call of own) perTurn[call.turn - 1]! += call.cost;
  let sum = 0;
  const sumOf = (pick: (call: BilledCall) => number) => own.reduce((total, call) => total + pick(call), 0);
  return {
    arm,
    perTurn,
    perTurnMean: rollingMean(perTurn),
    cumulative: perTurn.map((value) => (sum += value)),
    tokens: {
      input: sumOf((call) => call.usage.inputTokens),
      read: sumOf((call) => call.usage.cacheReadTokens),
      written: sumOf((call) => call.usage.cacheWriteTokens),
    },
    calls: own.length,
  };
}

/** The checkpoints, the crossovers against the anchor, and the goals for the project's defaults (the first arm). */
export function buildCostReport(options: {
  anchor: ArmCurve;
  arms: ArmCurve[];
  turns: number;
  gapSeconds: number;
  server: string;
  errors: string[];
}): CostReport {
  const { anchor, turns } = options;
  const last = turns - 1;
  const arms = options.arms.map((curve) => ({
    curve,
    perTurnFrom: fromTurn(curve.perTurnMean, anchor.perTurnMean),
    cumulativeFrom: fromTurn(curve.cumulative, anchor.cumulative),
    ratioAtLast: curve.perTurnMean[last]! / anchor.perTurnMean[last]!,
  }));
  const defaults = arms[0]!;
  const reached = turns >= GOALS.atTurn;
  const turnText = (turn: number | null) => (turn === null ? 'never' : `from turn ${turn}`);
  const checks: CostCheck[] = [
    {
      name: `${defaults.curve.arm.label}: per turn at or below the anchor from turn ${GOALS.perTurnFrom}`,
      value: turnText(defaults.perTurnFrom),
      pass: reached && defaults.perTurnFrom !== null && defaults.perTurnFrom <= GOALS.perTurnFrom,
    },
    {
      name: `${defaults.curve.arm.label}: cumulatively at or below the anchor by turn ${GOALS.cumulativeBy}`,
      value: turnText(defaults.cumulativeFrom),
      pass: reached && defaults.cumulativeFrom !== null && defaults.cumulativeFrom <= GOALS.cumulativeBy,
    },
    {
      name: `${defaults.curve.arm.label}: per turn at turn ${GOALS.atTurn} at most ${GOALS.ratioAt}× the anchor`,
      value: reached ? `${defaults.ratioAtLast.toFixed(2)}×` : `n/a (${turns} turns)`,
      pass: reached && defaults.ratioAtLast <= GOALS.ratioAt,
    },
  ];
  const errors = options.errors;
  return {
    turns,
    gapSeconds: options.gapSeconds,
    server: options.server,
    checkpoints: [...new Set([10, 50, 100, 200, 300, turns])].filter((turn) => turn <= turns).sort((a, b) => a - b),
    anchor,
    arms,
    checks,
    errors,
    pass: errors.length === 0 && checks.every((check) => check.pass),
  };
}

function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function row(report: CostReport, curve: ArmCurve, from: (string | null)[]): string[] {
  return [
    curve.arm.label,
    ...report.checkpoints.map((turn) => `${count(curve.perTurn[turn - 1]!)} (${count(curve.perTurnMean[turn - 1]!)})`),
    count(curve.cumulative.at(-1)!),
    ...from.map((value) => value ?? '-'),
  ];
}

/** The human-readable report. */
export function formatCostReport(report: CostReport): string {
  const turnText = (turn: number | null) => (turn === null ? 'never' : `turn ${turn}`);
  const rows = [
    ['arm', ...report.checkpoints.map((turn) => `turn ${turn}`), 'total', 'cheaper per turn', 'cumulatively'],
    row(report, report.anchor, [null, null]),
    ...report.arms.map((arm) => row(report, arm.curve, [turnText(arm.perTurnFrom), turnText(arm.cumulativeFrom)])),
  ];
  const last = report.turns;
  const tokens = [report.anchor, ...report.arms.map((arm) => arm.curve)].map(
    ({ arm, tokens: t, calls }) =>
      `  ${arm.label}: ${calls} calls; ${count(t.input)} uncached, ${count(t.read)} read, ${count(t.written)} written`,
  );
  return [
    `cost: ${report.turns} scripted chat turns per arm (bench/context-script.ts); the project's arms through real cycles`,
    `on ${report.server};`,
    'every arm through the real @anthropic-ai/sdk against a loopback stand-in of the Messages API that bills as the',
    'provider documents: a hit is the longest prefix ending at a block boundary at or up to 20 blocks before a',
    'breakpoint, written within its lifetime (5 min, refreshed on read); 1,024-token minimum; reads 0.1×, writes 1.25×',
    `(5 min) or 2× (1 h); tokens = chars / 4 for every arm; the clock advances ${report.gapSeconds} s a turn.`,
    'cost = cost-weighted input tokens, in the main model’s uncached input tokens (the 1/3-price model counts a third);',
    `each cell: that turn (mean of the ${WINDOW} turns ending there); "cheaper" compares those means.`,
    '',
    table(rows),
    '',
    `per turn at turn ${last} against the anchor (${WINDOW}-turn means): ${report.arms
      .map((arm) => `${arm.curve.arm.label} ${arm.ratioAtLast.toFixed(2)}×`)
      .join(', ')}`,
    'tokens billed over the run:',
    ...tokens,
    '',
    ...report.checks.map((check) => `${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.value}`),
    ...report.errors.map((error) => `error: ${error}`),
    `verdict: ${report.pass ? 'PASS' : 'FAIL'}`,
  ].join('\n');
}
