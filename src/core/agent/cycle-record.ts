import { z } from 'zod';
import { type CycleResult, type Trigger, TriggerSchema } from '../cycle/input';
import { UsageSchema } from '../cycle/model';
import { newestWithin } from '../payload';
import { codePointLength, headCodePoints } from '../text';
import { getterOf } from '../shareable';
import { AgentCycleOutcomeSchema } from './cancel';
import { KEPT_UNKNOWN_OUTCOMES, type UnknownOutcome, UnknownOutcomeSchema } from '../tools/idempotency';

/** Cycles the agent remembers, oldest dropped first. */
export const KEPT_CYCLES = 50;
/** Most the remembered cycles may weigh as JSON; they ride every continue-as-new and answer the `cycles` query. */
export const CYCLES_BUDGET_BYTES = 256 * 1024;
const RECORDED_DIRECTIVE_CHARS = 200;
const RECORDED_ERROR_CHARS = 2000;
/** Missing archive ids a record keeps: enough to name them, small across fifty records. */
const MISSING_ARCHIVES_KEPT = 20;

/** One cycle as the agent remembers it. */
export const CycleRecordSchema = getterOf(
  z.object({
    cycleId: z.string(),
    trigger: TriggerSchema(),
    outcome: AgentCycleOutcomeSchema(),
    iterations: z.number(),
    usage: UsageSchema(),
    directives: z.array(z.string()),
    error: z.string().optional(),
    /** The model that answered the cycle's last call, when the one before it in its list had failed for good. */
    fallbackModel: z.string().optional(),
    /** Whether the cycle changed the memory (notes aside); absent for a cancelled cycle and records before 0.6. */
    memoryChanged: z.boolean().optional(),
    /** Why a chat turn's reflect left the memory as it was. */
    noUpdate: z.string().optional(),
    /** A chat turn whose reply was cut at its output cap. */
    replyCut: z.literal(true).optional(),
    /** Archive pointers of the memory whose entries the worker's observation store did not hold. */
    missingArchives: z.array(z.string()).optional(),
    /** Calls of the cycle (and its sub-agents) that may or may not have taken effect. */
    unknownOutcomes: z.array(UnknownOutcomeSchema()).optional(),
  }),
);
export type CycleRecord = z.infer<ReturnType<typeof CycleRecordSchema>>;
/** The last `count` items of `items`. */
export function keepLast<T>(items: readonly T[], count: number): T[] {
  return items.slice(Math.max(0, items.length - count));
}

/** `text` cut to `points` code points, an ellipsis marking the cut. */
export function clip(text: string, points: number): string {
  return codePointLength(text) > points ? `${headCodePoints(text, points - 1)}…` : text;
}

/**
 * How the agent remembers a finished cycle, with the directives it showed the model: their openings (the directive
 * log and the cycle's history hold them whole), so fifty records stay small.
 */
export function cycleRecordOf(
  result: CycleResult,
  trigger: Trigger,
  directives: string[],
  memoryChanged?: boolean,
): CycleRecord {
  return {
    cycleId: result.cycleId,
    trigger,
    outcome: result.outcome,
    iterations: result.iterations,
    usage: result.usage,
    directives: directives.map((text) => clip(text, RECORDED_DIRECTIVE_CHARS)),
    ...(result.error ? { error: clip(result.error, RECORDED_ERROR_CHARS) } : {}),
    ...(result.fallbackModel ? { fallbackModel: result.fallbackModel } : {}),
    ...(memoryChanged !== undefined && { memoryChanged }),
    ...(result.memoryUnchanged ? { noUpdate: clip(result.memoryUnchanged, RECORDED_ERROR_CHARS) } : {}),
    ...(result.replyCut && { replyCut: true as const }),
    ...(result.missingArchives?.length
      ? { missingArchives: result.missingArchives.slice(0, MISSING_ARCHIVES_KEPT) }
      : {}),
    ...(result.unknownOutcomes?.length ? { unknownOutcomes: result.unknownOutcomes } : {}),
  };
}

/** The calls of the remembered cycles that may or may not have taken effect, newest last. */
export function unknownOutcomesOf(cycles: readonly CycleRecord[]): UnknownOutcome[] {
  return keepLast(
    cycles.flatMap((record) => record.unknownOutcomes ?? []),
    KEPT_UNKNOWN_OUTCOMES,
  );
}

/** How many of the latest cycles in a row left the memory as it was (a cancelled one counts as neither). */
export function turnsSinceMemoryChanged(cycles: readonly CycleRecord[]): number {
  let count = 0;
  for (let index = cycles.length - 1; index >= 0; index--) {
    const changed = cycles[index]?.memoryChanged;
    if (changed === true) break;
    if (changed === false) count++;
  }
  return count;
}

/** `cycles` with `record` added, within {@link KEPT_CYCLES} and {@link CYCLES_BUDGET_BYTES}, oldest dropped first. */
export function rememberCycle(cycles: readonly CycleRecord[], record: CycleRecord): CycleRecord[] {
  return newestWithin(keepLast([...cycles, record], KEPT_CYCLES), CYCLES_BUDGET_BYTES);
}
