import { z } from 'zod';
import { getterOf } from '../shareable';
import type { CycleRecord } from './cycle-record';

/** The `waitForCycle` update's argument: a cycle of the agent, by workflow id (`agent/<agentId>/cycle/<n>`). */
export const WaitForCycleArgsSchema = getterOf(z.strictObject({ cycleId: z.string().min(1).max(1000) }));
export type WaitForCycleArgs = z.infer<ReturnType<typeof WaitForCycleArgsSchema>>;

/** What an agent knows of its cycles when a caller asks to wait for one. */
export interface KnownCycles {
  agentId: string;
  /** Cycles the agent has started, the running one included. */
  cycleCount: number;
  running: string | undefined;
  cycles: readonly CycleRecord[];
}

/** The agent's record of `cycleId`, the newest when a rewind ran it twice; undefined while it has none. */
export function recordOf(cycles: readonly CycleRecord[], cycleId: string): CycleRecord | undefined {
  for (let index = cycles.length - 1; index >= 0; index--) {
    if (cycles[index]?.cycleId === cycleId) return cycles[index];
  }
  return undefined;
}

/**
 * Why waiting for `cycleId` (`parsed`: its agent and number, undefined for an id of no cycle) would never end, or null:
 * the cycle runs now (its record comes when the agent adopts its result) or has a record already. One the agent never
 * started or no longer remembers is refused at once.
 */
export function waitRefusal(
  known: KnownCycles,
  cycleId: string,
  parsed: { agentId: string; n: number } | undefined,
): string | null {
  if (known.running === cycleId || recordOf(known.cycles, cycleId)) return null;
  if (parsed?.agentId !== known.agentId) return `${cycleId} is not a cycle of agent ${known.agentId}`;
  if (parsed.n > known.cycleCount) {
    const started = known.cycleCount === 1 ? '1 cycle' : `${known.cycleCount} cycles`;
    return `agent ${known.agentId} never ran cycle ${parsed.n}: it has started ${started}`;
  }
  return `agent ${known.agentId} no longer keeps a record of cycle ${parsed.n} (only its latest cycles)`;
}
