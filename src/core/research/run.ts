import { z } from 'zod';
import { BOARD_LIMITS, type BoardEntry, BoardEntrySchema, type EntryBody, type EntryOf } from './board';
import { CAPABILITY_TOKEN_CHARS, DIRECTIVE_LIMITS, MAX_RUN_NOTES } from './limits';
import { RunNoteSchema } from './notes';
import { MAX_RUN_WAITS, type ResearchApproval, WorkerWaitSchema } from './approvals';
import { type ResearchPlan, aliasesOf } from './plan';
import { type Usage, UsageSchema } from '../cycle/model';
import { getterOf } from '../shareable';

/** Model usage of a run (the supervisor's planning, every worker's), in total, by model, and its price (null: unknown). */
export interface ResearchUsage {
  usage: Usage;
  usageByModel: Record<string, Usage>;
  costUsd: number | null;
}

export { WORKER_TOOLS } from './limits';

const name = z.string().trim().min(1).max(BOARD_LIMITS.name);

export const ResearchInputSchema = getterOf(
  z.strictObject({
    runId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'use letters, digits, ".", "_" or "-"'),
    question: z.string().trim().min(1).max(BOARD_LIMITS.text),
    /** Left out, the supervisor's model plans them from the question (`core/research-plan`). */
    entities: z.array(name).min(1).max(BOARD_LIMITS.list).optional(),
    fields: z.array(name).min(1).max(BOARD_LIMITS.list).optional(),
    /** Other names pages give a field, by field: the evidence rule accepts them as naming it. */
    aliases: z.record(name, z.array(name).max(BOARD_LIMITS.aliases)).optional(),
    /** Workers running at once. */
    maxWorkers: z.number().int().min(1).max(64).default(4),
    /** Workers one fact may use (first claim and re-delegations) before it counts as missing. */
    maxAttemptsPerFact: z.number().int().min(1).max(10).default(3),
    /** Model turns one worker may take. */
    maxWorkerTurns: z.number().int().min(1).max(50).default(8),
    /** Wall-clock budget of the run in milliseconds (workflow time). */
    timeLimitMs: z
      .number()
      .int()
      .positive()
      .default(30 * 60_000),
    /** The supervisor's model, which plans entities and fields the input leaves out. */
    model: z.string().min(1).optional(),
    workerModel: z.string().min(1).optional(),
    /** History length at which the supervisor continues as new, well before Temporal's limits (issue: < 10,000). */
    continueAsNewEvents: z.number().int().min(40).max(9000).default(8000),
    /** Mirror accepted entries to this Redis URL (`SCRATCHPAD_BOARD`). */
    mirror: z.string().min(1).optional(),
  }),
);
export type ResearchInput = z.input<ReturnType<typeof ResearchInputSchema>>;
export type ParsedResearchInput = z.output<ReturnType<typeof ResearchInputSchema>>;

// Workflow ids of the supervisor and its workers: a run id with a short suffix.
const workflowId = z.string().min(1).max(300);

/** What a run hands over to its next run at continue-as-new: the supervisor's second argument, checked as its first. */
export const ResearchHandoverSchema = getterOf(
  z.object({
    entries: z.array(BoardEntrySchema()),
    nextWorker: z.number().int().min(1),
    startedAt: z.number().int().nonnegative(),
    directivesRead: z.number().int().nonnegative(),
    activeWorkers: z.array(workflowId),
    spawned: z.array(workflowId),
    /** Continue-as-new count so far. */
    generation: z.number().int().nonnegative(),
    /** Usage counted so far: the supervisor's planning and finished workers'. */
    usageByModel: z.record(z.string(), UsageSchema()).optional(),
    /** Workers whose reported usage is counted: a worker's counts once. Absent from runs before it: none. */
    usageCounted: z.array(workflowId).optional(),
    /** Entries the Redis mirror holds; absent from runs that mirrored everything before continuing: all. */
    mirrored: z.number().int().nonnegative().optional(),
    notes: z.array(RunNoteSchema()).max(MAX_RUN_NOTES).optional(),
    /** The directive intake's memory (core/research/directives.ts). */
    directiveIds: z.array(z.string().max(DIRECTIVE_LIMITS.id)).max(DIRECTIVE_LIMITS.rememberedIds).optional(),
    directiveTimes: z.array(z.number().int().nonnegative()).max(DIRECTIVE_LIMITS.perMinute).optional(),
    /** Capability tokens of the workers still running, by worker id: the next run checks their writes. */
    tokens: z.record(workflowId, z.string().min(1).max(CAPABILITY_TOKEN_CHARS)).optional(),
    /** Calls the workers still running wait on: the next run's status still names them. */
    approvals: z.array(WorkerWaitSchema()).max(MAX_RUN_WAITS).optional(),
  }),
);
// The schema checks each entry against its type's body; the type names that body.
export type ResearchHandover = Omit<z.output<ReturnType<typeof ResearchHandoverSchema>>, 'entries'> & {
  entries: BoardEntry[];
};

export { UserDirectiveSchema } from './directives';
export { composeAnswer, describeMissing } from './answer';

export type ResearchOutcome = 'running' | 'complete' | 'incomplete';

export interface ResearchResult {
  outcome: Exclude<ResearchOutcome, 'running'>;
  answer?: string;
  citations: string[];
  /** Facts not VERIFIED when the run ended, with their state. */
  missing: string[];
  entries: number;
  /** How many times the supervisor continued as new. */
  continuedAsNew: number;
  /** The final board, so a closed run can be read without a worker to answer queries. */
  board: BoardEntry[];
  /** Model usage of the run: the supervisor's planning, and its workers' investigations and sub-agents. */
  usage?: ResearchUsage;
  /** What the run dropped or gave up on (directives, the mirror), one line per kind. */
  notes?: string[];
  mirror?: MirrorStatus;
}

/** Where the Redis mirror stands: entries it holds and not yet, and whether it is behind after giving up. */
export interface MirrorStatus {
  state: 'mirroring' | 'caught up' | 'gave up';
  mirrored: number;
  pending: number;
  /** Why it last gave up. */
  error?: string;
}

/** The mirror's status as the lane left it, counted against the board as it stands now. */
export function mirrorStatus(
  lane: Pick<MirrorStatus, 'state' | 'error'>,
  entries: number,
  mirrored: number,
): MirrorStatus {
  const pending = entries - mirrored;
  const state = lane.state === 'caught up' && pending > 0 ? 'mirroring' : lane.state;
  return { state, mirrored, pending, ...(lane.error !== undefined && { error: lane.error }) };
}

export interface ResearchStatus {
  runId: string;
  outcome: ResearchOutcome;
  facts: { entity: string; field: string; state: string; entryId?: string }[];
  activeWorkers: string[];
  workersStarted: number;
  entries: number;
  missing: string[];
  /** Model usage so far: the supervisor's planning, and workers whose investigation has ended. */
  usage: ResearchUsage;
  /** Directives dropped and why, the mirror giving up: what the user should know, one line per kind. */
  notes: string[];
  /** With a mirror (`SCRATCHPAD_BOARD`). */
  mirror?: MirrorStatus;
  /** Calls the workers' cycles wait on for a person's decision, with their facts; absent when none waits. */
  approvals?: ResearchApproval[];
}

/** What the supervisor hands one worker. */
export const WorkerInputSchema = getterOf(
  z.object({
    supervisorId: workflowId,
    workerId: workflowId,
    entity: name,
    field: name,
    goal: z.string().min(1).max(BOARD_LIMITS.text),
    /** True when the supervisor already wrote PENDING for this worker (a re-delegation). */
    delegated: z.boolean(),
    searchHint: z.string().max(BOARD_LIMITS.text).optional(),
    /** The search query the supervisor wrote on the re-delegated PENDING entry after a tombstone. */
    searchQuery: z.string().max(BOARD_LIMITS.query).optional(),
    /** The worker's capability token: its writes present it (absent from workers of runs before tokens). */
    token: z.string().min(1).max(CAPABILITY_TOKEN_CHARS).optional(),
    // As many as the board holds: its facts and their attempts bound them.
    tombstoned: z.array(z.string().max(BOARD_LIMITS.url)),
    maxTurns: z.number().int().min(1).max(50),
    model: z.string().min(1).optional(),
    attempt: z.number().int().min(1),
  }),
);
export type WorkerInput = z.infer<ReturnType<typeof WorkerInputSchema>>;

export interface WorkerResult {
  workerId: string;
  wrote: string;
  turns: number;
  /** The investigation's model usage, its sub-agents' included (absent from workers that predate investigations). */
  usage?: Usage;
  usageByModel?: Record<string, Usage>;
}

/** The first STRATEGY when the user gave both lists: the question is the goal. */
export function initialStrategy(input: ParsedResearchInput, workerId: (n: number) => string): EntryBody<'STRATEGY'> {
  const fields = input.fields ?? [];
  const aliases = aliasesOf(input.aliases, fields);
  return strategyOf(
    { goal: input.question, entities: input.entities ?? [], fields, ...(aliases && { aliases }) },
    workerId,
  );
}

/** The first STRATEGY: one fact per entity × field, each assigned to a worker id from `workerId(n)`. */
export function strategyOf(plan: ResearchPlan, workerId: (n: number) => string): EntryBody<'STRATEGY'> {
  const pairs = plan.entities.flatMap((entity) => plan.fields.map((field) => ({ entity, field })));
  return {
    goal: plan.goal,
    entities: plan.entities,
    fields: plan.fields,
    toolChain: ['web_search', 'web_fetch', 'scratchpad_read'],
    assigned: pairs.map((pair, index) => ({ ...pair, worker: workerId(index + 1) })),
    directives: [],
    ...(plan.aliases && { aliases: plan.aliases }),
  };
}

/** A goal as the plan wrote it: before directives were read into goals (runs from earlier versions) too. */
function planGoal(goal: string): string {
  return goal.split('\nDirectives:')[0] ?? goal;
}

/**
 * A STRATEGY revised by user directives: it lists only the directives new since the last STRATEGY, so each
 * directive is recorded once however many revisions follow; the goal stays the plan's.
 */
export function reviseStrategy(strategy: EntryBody<'STRATEGY'>, directives: string[]): EntryBody<'STRATEGY'> {
  return { ...strategy, goal: planGoal(strategy.goal), directives: directives.slice(0, BOARD_LIMITS.list) };
}

/**
 * The goal a worker is briefed with: the plan's, then the directives read into STRATEGY so far, the newest kept
 * when they do not all fit the board's text cap.
 */
export function workerGoal(entries: readonly BoardEntry[], question: string): string {
  const strategies = entries.filter((entry): entry is EntryOf<'STRATEGY'> => entry.type === 'STRATEGY');
  const latest = strategies.at(-1);
  const base = latest ? planGoal(latest.body.goal) : question;
  // Revisions from before each listed every directive so far: a text counts once, where it was last listed.
  const read = [...new Set(strategies.flatMap((entry) => entry.body.directives).reverse())];
  const kept: string[] = [];
  let length = base.length + '\nDirectives:'.length;
  for (const text of read) {
    if (length + text.length + 3 > BOARD_LIMITS.text) break;
    length += text.length + 3;
    kept.unshift(text);
  }
  return kept.length === 0 ? base : `${base}\nDirectives:\n${kept.map((text) => `- ${text}`).join('\n')}`;
}
