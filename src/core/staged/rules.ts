/**
 * Staged runs (design.md, Staged runs), as pure rules: when to stage, what each stage sees, how a prior scratchpad is
 * carried, and what outcome a run earns. The prior scratchpad every cycle can carry is in core/cycle/run-notes.ts.
 * A model can say it is done; work is complete only when verification has run.
 */

/** The corrective input a stage gets when it claims completion but changed no files (design.md, No-op corrections). */
export const NO_OP_CORRECTION = 'no files changed: give concrete files or patches';

/** What a run records when the plan-only turn gave no usable plan (seed 004: a run says what happened). */
export const NO_PLAN_NOTICE = 'the model gave no plan: running the task as one stage';

/** What a run's outcome line adds when none of its stages changed a file. */
export const NO_CHANGE_NOTICE = 'no stage changed any file';

/** Whether a stage attempt changed files: `changed` when it wrote any path, else `no_change`. */
export function stageChange(touchedPaths: readonly string[]): 'changed' | 'no_change' {
  return touchedPaths.length > 0 ? 'changed' : 'no_change';
}

/** Paths one stage may write unless told otherwise. */
export const DEFAULT_MAX_PATHS = 3;

/** Most stages a plan may have; more are dropped, and the plan says so. */
export const MAX_PLAN_STAGES = 8;
/** Most characters of one stage's description. */
export const MAX_STAGE_CHARS = 500;
/**
 * Tasks that touch a service, an API, a database or dependencies are the ones a small model botches in one shot
 * (fifteen files in one reply, a health test and a missing migration), so they get a plan-only turn and
 * small stages. Whole words only, case-insensitive: "rest" in "restore" or "db" in "dbg" do not count.
 */
const STAGED_WORK = new RegExp(
  '\\b(' +
    [
      'service',
      'services',
      'microservice',
      'server',
      'api',
      'apis',
      'endpoint',
      'endpoints',
      'rest',
      'graphql',
      'http',
      'route',
      'routes',
      'database',
      'databases',
      'db',
      'sql',
      'sqlite',
      'postgres',
      'postgresql',
      'mysql',
      'redis',
      'mongodb',
      'migration',
      'migrations',
      'schema',
      'orm',
      'dependency',
      'dependencies',
      'package\\.json',
      'npm install',
      'pip install',
      'requirements\\.txt',
    ].join('|') +
    ')\\b',
  'i',
);

/** True when a task looks like service, API, database or dependency work (see {@link STAGED_WORK}). */
export function looksLikeStagedWork(task: string): boolean {
  return STAGED_WORK.test(task);
}

/** `--staged` / `--no-staged` win; without either the rule decides. */
export function shouldStage(task: string, flag: boolean | undefined): boolean {
  return flag ?? looksLikeStagedWork(task);
}

/** What one stage is told: nothing of earlier stages' exchanges, only the task, the plan, this stage and notes. */
export interface StageContext {
  task: string;
  plan: readonly string[];
  /** 1-based index into the plan; a repair stage has none. */
  index?: number;
  stage: string;
  /** The model's run-local notes so far (its `scratchpad` field), if any. */
  notes?: string;
  maxPaths: number;
  /** Set when the previous attempt at this stage changed nothing. */
  correction?: string;
}

export function buildStageContext(context: StageContext): string {
  const plan = context.plan.map((step, i) => `${i + 1}. ${step}`).join('\n');
  const which = context.index === undefined ? 'Repair stage' : `Stage ${context.index} of ${context.plan.length}`;
  const lines = [
    '## Staged run',
    `Task: ${context.task}`,
    '',
    'Plan:',
    plan || '(no plan)',
    '',
    `${which}: ${context.stage}`,
    `Write real files with fs_write (at most ${context.maxPaths} paths in this stage), then call done.`,
    'Put your run-local notes in a "scratchpad" field of your tool arguments, e.g. {plan, done, next, notes}.',
  ];
  if (context.notes?.trim()) lines.push('', 'Notes so far:', context.notes.trim());
  if (context.correction) lines.push('', context.correction);
  return lines.join('\n');
}

/** The first user message of the plan-only turn. */
export function buildPlanPrompt(task: string): string {
  return [
    `Task: ${task}`,
    '',
    `Plan this task in at most ${MAX_PLAN_STAGES} small stages, each touching at most a few files.`,
    'Do not write any code yet: call the plan tool with the stages in order.',
  ].join('\n');
}

/** A plan tool call's stages, checked and capped; undefined when the arguments hold no usable stage. */
export function parsePlan(args: Record<string, unknown>): string[] | undefined {
  const stages = args.stages;
  if (!Array.isArray(stages)) return undefined;
  const kept = stages
    .filter((stage): stage is string => typeof stage === 'string' && stage.trim() !== '')
    .map((stage) => Array.from(stage.trim()).slice(0, MAX_STAGE_CHARS).join(''))
    .slice(0, MAX_PLAN_STAGES);
  return kept.length > 0 ? kept : undefined;
}

/**
 * A sandbox-relative path in one spelling, so `./a.js`, `a.js` and `x/../a.js` count once against the cap.
 * A path that climbs out stays as given: the file tool refuses it anyway.
 */
export function normalizePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return path;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/** Why a write to `path` is refused under the cap, or undefined when it may go ahead. */
export function pathCapRefusal(touched: readonly string[], path: string, maxPaths: number): string | undefined {
  const normalized = normalizePath(path);
  if (touched.includes(normalized) || touched.length < maxPaths) return undefined;
  return (
    `refused: this stage may touch at most ${maxPaths} paths and has already written ${touched.join(', ')}; ` +
    `${normalized} was not written. Call done and leave it to a later stage.`
  );
}

export type StagedOutcome = 'verified' | 'unverified' | 'failed';

/** What verification came to: not run (no command), passed, or still failing after the repairs. */
export type VerificationState = 'none' | 'passed' | 'failed';

/** `verified` only when verification ran and passed; no verification is `unverified`, never a success. */
export function stagedOutcome(verification: VerificationState): StagedOutcome {
  if (verification === 'passed') return 'verified';
  if (verification === 'none') return 'unverified';
  return 'failed';
}

/** The repair stage's description: what failed, with the (possibly offloaded) output. */
export function repairStage(command: string, output: string): string {
  return `Verification \`${command}\` failed. Fix the code so that it passes. Its output:\n${output}`;
}
