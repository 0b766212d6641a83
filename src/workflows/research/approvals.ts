import { log } from '@temporalio/workflow';
import { MAX_RUN_WAITS, MAX_WAITS_PER_WORKER, type WorkerWait } from '../../core/research/approvals';
import { newestWithin } from '../../core/payload';
import type { ApprovalWait } from '../../core/tools/approval';
import { isWorkerObservation } from '../../common/ids';

/** Bytes of waiting calls a continue-as-new hands over, beside a board of up to 7/8 of the payload budget. */
const HANDOVER_WAITS_BYTES = 32 * 1024;

/**
 * The calls a research run's workers' investigations wait on, by worker, from the waits the workers relay (each
 * worker's child cycle sends its own on up). A signal has no caller to refuse: one that names a cycle of no running
 * worker, or passes the caps, is dropped with a log line. A worker that ended waits on nothing, whatever its cycle
 * last said.
 */
export class WorkerApprovals {
  /** By `<cycleId> <callId>`, oldest first. */
  private readonly waits = new Map<string, WorkerWait>();

  constructor(handedOver: readonly WorkerWait[] = []) {
    for (const wait of handedOver) this.waits.set(keyOf(wait.call.cycleId, wait.call.callId), wait);
  }

  /** A wait a worker relayed; true when what waits changed. */
  receive(wait: ApprovalWait, active: ReadonlySet<string>): boolean {
    this.forgetEnded(active);
    if (wait.kind === 'resolved') return this.waits.delete(keyOf(wait.cycleId, wait.callId));
    const { call } = wait;
    const workerId = [...active].find((id) => id !== call.cycleId && isWorkerObservation(call.cycleId, id));
    const key = keyOf(call.cycleId, call.callId);
    if (workerId === undefined) return dropped(`cycle ${call.cycleId} is no running worker's`);
    if (this.waits.has(key)) return false;
    const ofWorker = [...this.waits.values()].filter((known) => known.workerId === workerId).length;
    if (ofWorker >= MAX_WAITS_PER_WORKER) return dropped(`${workerId} has ${ofWorker} calls waiting already`);
    if (this.waits.size >= MAX_RUN_WAITS) return dropped(`the run has ${this.waits.size} calls waiting already`);
    this.waits.set(key, { workerId, call });
    return true;
  }

  /** Calls the running workers wait on, oldest first. */
  waiting(active: ReadonlySet<string>): WorkerWait[] {
    return [...this.waits.values()].filter((wait) => active.has(wait.workerId));
  }

  /** What the next run keeps: the running workers' waits, the newest within their share of the handover. */
  handover(active: ReadonlySet<string>): { approvals?: WorkerWait[] } {
    const waiting = newestWithin(this.waiting(active), HANDOVER_WAITS_BYTES);
    return waiting.length > 0 ? { approvals: waiting } : {};
  }

  private forgetEnded(active: ReadonlySet<string>): void {
    for (const [key, wait] of this.waits) if (!active.has(wait.workerId)) this.waits.delete(key);
  }
}

function keyOf(cycleId: string, callId: string): string {
  return `${cycleId} ${callId}`;
}

function dropped(reason: string): false {
  log.warn(`dropped an approvalWait signal: ${reason}`);
  return false;
}
