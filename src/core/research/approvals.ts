import { z } from 'zod';
import { getterOf } from '../shareable';
import { type PendingApproval, PendingApprovalSchema } from '../tools/approval';
import type { BoardEntry } from './board-schema';

/*
 * A research run's workers follow the worker's approval policies (design.md, Approval): a call that asks waits in the
 * worker's investigation cycle, which is decided directly. The supervisor keeps which worker's call waits, so its
 * status and Web UI say which fact waits.
 */

/** Calls one worker may have waiting at once: its investigation waits one at a time, its sub-agents each one more. */
export const MAX_WAITS_PER_WORKER = 8;
/** Calls a run's workers may have waiting at once (a worker cap of 64 runs): past it, a wait is dropped with a log. */
export const MAX_RUN_WAITS = 128;

/** A call a worker's cycle waits on, as the supervisor keeps it and hands it over at continue-as-new. */
export const WorkerWaitSchema = getterOf(
  z.strictObject({
    workerId: z.string().min(1).max(300),
    call: PendingApprovalSchema(),
  }),
);
export type WorkerWait = z.infer<ReturnType<typeof WorkerWaitSchema>>;

/** One waiting call in the run's `status`: which fact, which call, where to decide it. */
export interface ResearchApproval {
  workerId: string;
  /** The fact the worker investigates, from the board (absent only if the board names no fact for the worker). */
  entity?: string;
  field?: string;
  callId: string;
  tool: string;
  /** The cycle that waits: its `decide` update takes the decision. */
  cycleId: string;
  /** The arguments as the model gave them, cut for display. */
  args: string;
  requestedAt: string;
  expiresAt: string;
}

/** The fact `workerId` was given: the newest PENDING assigned to it, else its STRATEGY assignment. */
export function factOfWorker(
  entries: readonly BoardEntry[],
  workerId: string,
): { entity: string; field: string } | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as BoardEntry;
    if (entry.type === 'PENDING' && entry.body.assignedTo === workerId) {
      return { entity: entry.body.entity, field: entry.body.field };
    }
    if (entry.type === 'STRATEGY') {
      const assigned = entry.body.assigned.find((assignment) => assignment.worker === workerId);
      if (assigned) return { entity: assigned.entity, field: assigned.field };
    }
  }
  return undefined;
}

/** The status's view of each waiting call, oldest first, with its worker's fact. */
export function approvalViews(entries: readonly BoardEntry[], waits: readonly WorkerWait[]): ResearchApproval[] {
  return waits.map(({ workerId, call }) => ({ workerId, ...factOfWorker(entries, workerId), ...callView(call) }));
}

function callView(call: PendingApproval): Omit<ResearchApproval, 'workerId' | 'entity' | 'field'> {
  const { callId, tool, cycleId, args, requestedAt, expiresAt } = call;
  return { callId, tool, cycleId, args, requestedAt, expiresAt };
}
