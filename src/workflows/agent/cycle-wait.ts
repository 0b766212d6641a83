import { condition } from '@temporalio/workflow';
import type { CycleRecord } from '../../core/agent/agent';
import { type KnownCycles, WaitForCycleArgsSchema, recordOf, waitRefusal } from '../../core/agent/cycle-wait';
import { parseCycleWorkflowId } from '../../common/ids';
import { validate } from './validators';

/** The parts of an agent's home a wait for one of its cycles reads. */
export interface CycleWaitSource {
  agentId: string;
  cycleCount: number;
  cycles: readonly CycleRecord[];
  status(): { running: { cycleId: string } | null };
}

function knownCycles(home: CycleWaitSource): KnownCycles {
  const { agentId, cycleCount, cycles } = home;
  return { agentId, cycleCount, cycles, running: home.status().running?.cycleId };
}

/** `waitForCycle`: refused, before it reaches history, for a cycle that neither runs nor has a record. */
export function validateWaitForCycle(home: CycleWaitSource, args: unknown): void {
  validate(WaitForCycleArgsSchema(), args);
  const { cycleId } = WaitForCycleArgsSchema().parse(args);
  const refusal = waitRefusal(knownCycles(home), cycleId, parseCycleWorkflowId(cycleId));
  if (refusal) throw new Error(refusal);
}

/**
 * Resolves with the cycle's record once the agent has adopted its result. The validator let through only a cycle that
 * runs or has a record, and a running cycle is always recorded when it ends (cancelled or failed included).
 */
export async function waitForCycle(home: CycleWaitSource, args: unknown): Promise<CycleRecord> {
  const { cycleId } = WaitForCycleArgsSchema().parse(args);
  const found: { record?: CycleRecord } = {};
  await condition(() => (found.record = recordOf(home.cycles, cycleId)) !== undefined);
  return found.record as CycleRecord;
}
