import { z } from 'zod';
import { CycleOutcomeSchema, type Trigger } from '../cycle/input';
import { ZERO_USAGE } from '../cycle/model';
import { getterOf } from '../shareable';
import type { CycleRecord } from './agent';

/**
 * How a cycle of an agent ended as the agent records it: a cycle's own outcome, or `cancelled` (the `cancelCycle`
 * update, a chat turn's Ctrl-C), which only the agent can say since a cancelled cycle returns no result.
 */
export const AgentCycleOutcomeSchema = getterOf(z.enum([...CycleOutcomeSchema().options, 'cancelled']));
export type AgentCycleOutcome = z.infer<ReturnType<typeof AgentCycleOutcomeSchema>>;

/** The `cancelCycle` update's argument: the cycle the caller believes runs now. */
export const CancelCycleArgsSchema = getterOf(z.strictObject({ cycleId: z.string().min(1).max(1000) }));
export type CancelCycleArgs = z.infer<ReturnType<typeof CancelCycleArgsSchema>>;

/**
 * Why `cycleId` cannot be cancelled now, or null: only the cycle that runs can be, since a finished one has been
 * adopted already and a queued one has no id yet.
 */
export function cancelRefusal(running: string | undefined, cycleId: string): string | null {
  if (running === undefined) return `no cycle runs now: ${cycleId} has ended or has not started`;
  if (running !== cycleId) return `${cycleId} is not the cycle that runs now (${running} runs)`;
  return null;
}

/**
 * A cancelled cycle as the agent remembers it: nothing of its work is adopted, so no iterations or usage are counted
 * here (its history still holds what it spent).
 */
export function cancelledRecord(cycleId: string, trigger: Trigger): CycleRecord {
  return { cycleId, trigger, outcome: 'cancelled', iterations: 0, usage: ZERO_USAGE, directives: [] };
}
