import { ARM_LABELS, type ArmName, type ArmRun, type ReflectOutcome, type TurnSample, isAgentArm } from './memory-arms';
import { QUESTION_TYPES } from './memory-data';
import type { Scored } from './memory-score';
import { formatMs, median, table } from './measure';

/** One arm's figures over every conversation it ran. */
export interface ArmSummary {
  arm: ArmName;
  questions: number;
  correct: number;
  byType: Record<string, { correct: number; total: number }>;
  /** Updated-fact questions answered with the old value only. */
  stale: { count: number; of: number };
  /** Questions whose accepted answer was in what the arm answered from. */
  inPrompt: number;
  calls: number;
  parseErrors: number;
  cut: number;
  /** Two-phase: how each reflect went (session turns and questions alike). */
  reflect: Record<ReflectOutcome, number>;
  /** Agent arms, session turns: how many changed the memory. */
  sessionTurnsChanged: { count: number; of: number };
  failedTurns: number;
  errors: string[];
  perTurn: { session?: PerTurn; question?: PerTurn };
}

/** Means of tokens per turn and medians of times. */
export interface PerTurn {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  replyMs: number;
  turnMs: number;
}

function perTurn(samples: readonly TurnSample[]): PerTurn | undefined {
  const done = samples.filter((sample) => !sample.failed);
  if (done.length === 0) return undefined;
  const mean = (pick: (sample: TurnSample) => number) => done.reduce((sum, s) => sum + pick(s), 0) / done.length;
  return {
    turns: done.length,
    inputTokens: mean((sample) => sample.usage.inputTokens),
    outputTokens: mean((sample) => sample.usage.outputTokens),
    cachedTokens: mean((sample) => sample.usage.cacheReadTokens),
    replyMs: median(done.map((sample) => sample.replyMs)),
    turnMs: median(done.map((sample) => sample.turnMs)),
  };
}

export function summarise(arm: ArmName, runs: readonly ArmRun[]): ArmSummary {
  const samples = runs.flatMap((run) => run.samples);
  const answers: Scored[] = runs.flatMap((run) => run.answers);
  const byType: ArmSummary['byType'] = {};
  for (const answer of answers) {
    const entry = (byType[answer.question.type] ??= { correct: 0, total: 0 });
    entry.total++;
    if (answer.correct) entry.correct++;
  }
  const updated = answers.filter((answer) => (answer.question.stale ?? []).length > 0);
  const reflect: ArmSummary['reflect'] = { updated: 0, 'no-call': 0, cut: 0, rejected: 0, unchanged: 0 };
  for (const sample of samples) if (sample.reflect) reflect[sample.reflect]++;
  const sessions = samples.filter((sample) => sample.kind === 'session' && !sample.failed);
  return {
    arm,
    questions: answers.length,
    correct: answers.filter((answer) => answer.correct).length,
    byType,
    stale: { count: updated.filter((answer) => answer.stale).length, of: updated.length },
    inPrompt: answers.filter((answer) => answer.inPrompt).length,
    calls: samples.reduce((sum, sample) => sum + sample.calls, 0),
    parseErrors: samples.reduce((sum, sample) => sum + sample.parseErrors, 0),
    cut: samples.reduce((sum, sample) => sum + sample.cut, 0),
    reflect,
    sessionTurnsChanged: { count: sessions.filter((sample) => sample.memoryChanged).length, of: sessions.length },
    failedTurns: samples.filter((sample) => sample.failed).length,
    errors: [
      ...runs.flatMap((run) => (run.error ? [`${run.conversation}: ${run.error}`] : [])),
      ...answers.flatMap((answer) => (answer.error ? [`${answer.question.id}: ${answer.error}`] : [])),
    ],
    perTurn: {
      session: perTurn(samples.filter((sample) => sample.kind === 'session')),
      question: perTurn(samples.filter((sample) => sample.kind === 'question')),
    },
  };
}

const percent = (count: number, of: number) => (of === 0 ? '-' : `${Math.round((100 * count) / of)}%`);
const share = (count: number, of: number) => (of === 0 ? '-' : `${count}/${of} ${percent(count, of)}`);
const tokens = (value: number) => (value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US'));

/** Whether the protocol works at all: what `--short` exits on. Never accuracy. */
export function protocolCheck(summaries: readonly ArmSummary[]): { pass: boolean; problems: string[] } {
  const problems: string[] = [];
  const twoPhase = summaries.find((summary) => summary.arm === 'scratchpad');
  if (twoPhase) {
    const reflects = Object.values(twoPhase.reflect).reduce((sum, count) => sum + count, 0);
    if (twoPhase.reflect.updated === 0) {
      problems.push(`two-phase: no reflect produced a valid update (${reflects} reflect calls)`);
    }
  }
  for (const summary of summaries.filter((one) => isAgentArm(one.arm))) {
    if (summary.calls === 0) problems.push(`${summary.arm}: no model call completed`);
    else if (summary.parseErrors * 2 > summary.calls) {
      problems.push(`${summary.arm}: parse errors on ${summary.parseErrors} of ${summary.calls} calls (over half)`);
    }
  }
  return { pass: problems.length === 0, problems };
}

/** The report's tables. */
export function formatMemoryReport(summaries: readonly ArmSummary[]): string {
  const arms = summaries.map((summary) => ARM_LABELS[summary.arm]);
  const seen = new Set(summaries.flatMap((summary) => Object.keys(summary.byType)));
  const types = [
    ...QUESTION_TYPES.filter((type) => seen.has(type)),
    ...[...seen].filter((type) => !(QUESTION_TYPES as readonly string[]).includes(type)).sort(),
  ];
  const accuracy = table([
    ['question type', ...arms],
    ...types.map((type) => [
      type,
      ...summaries.map((summary) => {
        const entry = summary.byType[type];
        return entry ? share(entry.correct, entry.total) : '-';
      }),
    ]),
    ['overall', ...summaries.map((summary) => share(summary.correct, summary.questions))],
    ['updated facts answered with the old value', ...summaries.map((s) => share(s.stale.count, s.stale.of))],
    ['answer present in the memory / window', ...summaries.map((s) => share(s.inPrompt, s.questions))],
  ]);
  const agentArms = summaries.filter((summary) => isAgentArm(summary.arm));
  const protocol =
    agentArms.length === 0
      ? '(no agent arm ran)'
      : table([
          ['', ...agentArms.map((summary) => ARM_LABELS[summary.arm])],
          ['model calls', ...agentArms.map((summary) => String(summary.calls))],
          ['parse errors per call', ...agentArms.map((summary) => share(summary.parseErrors, summary.calls))],
          ['calls cut at the output cap, unusable', ...agentArms.map((summary) => share(summary.cut, summary.calls))],
          [
            'session turns that changed the memory',
            ...agentArms.map((summary) => share(summary.sessionTurnsChanged.count, summary.sessionTurnsChanged.of)),
          ],
          ...(['updated', 'no-call', 'cut', 'rejected', 'unchanged'] as const).map((outcome) => [
            {
              updated: 'reflect: valid update',
              'no-call': 'reflect: no update call parsed',
              cut: 'reflect: cut at the output cap',
              rejected: 'reflect: update rejected',
              unchanged: 'reflect: update changed nothing',
            }[outcome],
            ...agentArms.map((summary) => {
              const all = Object.values(summary.reflect).reduce((sum, count) => sum + count, 0);
              return summary.arm === 'scratchpad' ? share(summary.reflect[outcome], all) : '-';
            }),
          ]),
          ['failed turns', ...agentArms.map((summary) => String(summary.failedTurns))],
        ]);
  const rows: string[][] = [['arm', 'turns', 'input tok', 'output tok', 'cached tok', 'reply ms', 'turn ms']];
  for (const summary of summaries) {
    for (const kind of ['session', 'question'] as const) {
      const figures = summary.perTurn[kind];
      if (!figures) continue;
      rows.push([
        `${ARM_LABELS[summary.arm]}, ${kind === 'session' ? 'session turns' : 'questions'}`,
        String(figures.turns),
        tokens(figures.inputTokens),
        tokens(figures.outputTokens),
        tokens(figures.cachedTokens),
        formatMs(figures.replyMs),
        formatMs(figures.turnMs),
      ]);
    }
  }
  const errors = summaries.flatMap((summary) => summary.errors.map((error) => `${summary.arm}: ${error}`));
  return [
    'Accuracy (normalised string match: an accepted answer contained in the reply):',
    '',
    accuracy,
    '',
    'Protocol (agent arms; every cycle, session turns and questions; a parse error is a call whose output could not',
    'be used, though the output cap did not stop it: no update call parsed, a rejected update, or a reply left as',
    'raw JSON; the same at the cap counts as cut):',
    '',
    protocol,
    '',
    'Per turn (tokens: means per turn; ms: medians; agent arms: reply = send → reply, turn = send → cycle end,',
    'reflect included; direct arms: both are the one call):',
    '',
    table(rows),
    ...(errors.length > 0 ? ['', 'Errors:', ...errors.slice(0, 20).map((error) => `  ${error.slice(0, 300)}`)] : []),
  ].join('\n');
}
