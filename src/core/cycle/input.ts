import { z } from 'zod';
import { DEFAULT_BUDGET_CHARS } from '../scratchpad/budget';
import { UsageSchema } from './model';
import { ScratchpadSchema } from '../scratchpad/scratchpad';
import { MAX_SUBAGENT_DEPTH } from '../agent/subagent';
import { CYCLE_TOOLS } from '../tools/catalogue';
import { shareable } from '../shareable';

export const DEFAULT_MAX_ITERATIONS = 10;

/** Whose fact a research cycle investigates; sub-agents inherit it read-only (`mayWrite: false`). */
export const ResearchContextSchema = shareable(
  z.object({
    supervisorId: z.string().min(1).max(300),
    workerId: z.string().min(1).max(300),
    entity: z.string().min(1).max(200),
    field: z.string().min(1).max(200),
    mayWrite: z.boolean().default(true),
  }),
);
export type ResearchContext = z.output<ReturnType<typeof ResearchContextSchema>>;

export const CycleOutcomeSchema = shareable(z.enum(['completed', 'max_iterations', 'failed']));
export type CycleOutcome = z.infer<ReturnType<typeof CycleOutcomeSchema>>;

export const TriggerSchema = shareable(z.enum(['task', 'chat', 'schedule', 'manual']));
export type Trigger = z.infer<ReturnType<typeof TriggerSchema>>;

/** Input of one `agentCycle` workflow. */
export const CycleInputSchema = shareable(
  z.object({
    agentId: z.string().min(1),
    /** Defaults to the workflow id. */
    cycleId: z.string().min(1).optional(),
    before: ScratchpadSchema(),
    trigger: TriggerSchema().default('task'),
    maxIterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS),
    /** Model spec overriding the worker's default. */
    model: z.string().optional(),
    /** Work tools offered to the model. */
    tools: z.array(z.string()).default([...CYCLE_TOOLS]),
    /** Attempts per activity before the cycle fails (Temporal retries in between). */
    maxAttempts: z.number().int().min(1).max(20).default(5),
    /** `task`: seed 000's loop over the task queue; `chat`: seed 001's respond → reflect turn on `message`. */
    mode: z.enum(['task', 'chat']).default('task'),
    message: z.string().optional(),
    /** Chat: a separate reflect call (seed 001 two-phase) or the update riding in the response. */
    twoPhase: z.boolean().default(true),
    /** Chat: model spec for the reflect phase (a cheaper one). */
    reflectModel: z.string().optional(),
    /** Ceiling on the rendered scratchpad; older content beyond it is archived. */
    budgetChars: z.number().int().min(1000).max(200_000).default(DEFAULT_BUDGET_CHARS),
    /** Directives held for this cycle while no cycle was running. */
    directives: z.array(z.string()).default([]),
    /** Seed 004: a prior scratchpad's text, appended at the bottom of the user message (cut, omitted when empty). */
    priorScratchpad: z.string().max(1_000_000).optional(),
    /** A staged run's stage: task, plan, this stage and notes, appended to the user message. */
    stageContext: z.string().max(200_000).optional(),
    /** Most distinct paths `fs_write` may touch in this cycle; a write to one more is refused. */
    maxPaths: z.number().int().min(1).max(50).optional(),
    /** System prompt: seed 000's cycle rules, or those plus seed 004's run-local scratchpad convention. */
    system: z.enum(['cycle', 'staged']).default('cycle'),
    /** How deep this cycle is among sub-agents: 0 for an agent's own cycle, its parent's plus one for a sub-agent. */
    subagentDepth: z.number().int().min(0).max(MAX_SUBAGENT_DEPTH).default(0),
    /** A research worker's investigation: the board it reads tombstones from and, when `mayWrite`, writes its fact to. */
    research: ResearchContextSchema().optional(),
  }),
);
export type CycleInput = z.input<ReturnType<typeof CycleInputSchema>>;
export type ParsedCycleInput = z.output<ReturnType<typeof CycleInputSchema>>;

export const TraceEntrySchema = shareable(
  z.object({
    iteration: z.number(),
    request: z.object({ promptChars: z.number(), tools: z.array(z.string()) }),
    response: z.object({ text: z.string(), toolCalls: z.array(z.string()), stopReason: z.string().nullable() }),
    dispatch: z.enum(['tool', 'update', 'done', 'parse_error', 'unknown_tool', 'refused', 'reply', 'reflect']),
    phase: z.enum(['task', 'respond', 'reflect']).default('task'),
    action: z.object({ tool: z.string(), args: z.unknown() }).optional(),
    observation: z.string().optional(),
    error: z.string().optional(),
    usage: UsageSchema(),
  }),
);
export type TraceEntry = z.input<ReturnType<typeof TraceEntrySchema>>;

/** Result of one cycle: seed 000's after-state (with `last_updated` untouched) and what happened. */
export const CycleResultSchema = shareable(
  z.object({
    agentId: z.string(),
    cycleId: z.string(),
    outcome: CycleOutcomeSchema(),
    after: ScratchpadSchema(),
    iterations: z.number(),
    usage: UsageSchema(),
    error: z.string().optional(),
    /** Chat: the assistant's reply. */
    reply: z.string().optional(),
    /** Directives this cycle showed the model, with the iteration that first saw each. */
    directives: z.array(z.object({ text: z.string(), iteration: z.number() })).default([]),
    /** Usage split by the model that reported it, for cost. */
    usageByModel: z.record(z.string(), UsageSchema()).default({}),
    /** Content moved out of the scratchpad to keep it within budget. */
    archived: z.array(z.object({ section: z.string(), id: z.string(), chars: z.number() })).default([]),
    /** Paths `fs_write` wrote, and paths the path cap refused (seed 004). */
    touchedPaths: z.array(z.string()).optional(),
    refusedPaths: z.array(z.string()).optional(),
    /** The model's run-local notes: the last `scratchpad` field of its tool arguments (seed 004). */
    scratchpad: z.string().optional(),
    /** The board entry an accepted `board_write` appended (`VERIFIED e7`): it ended the investigation. */
    boardEntry: z.string().optional(),
  }),
);
export type CycleResult = z.input<ReturnType<typeof CycleResultSchema>>;
