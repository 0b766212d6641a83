import type { Decision, DecisionArgs, PendingApproval } from './approval';

/** One call in an {@link ApprovalBook}: waiting, being decided (a decision is being checked), or decided. */
export interface BookEntry {
  pending: PendingApproval;
  /** Who is deciding it while the decision's edited arguments are checked. */
  deciding?: string;
  decision?: Decision;
}

/** The call a `decide` applies to, or why it applies to none. */
export type Target = { ok: true; entry: BookEntry } | { ok: false; refusal: string };

/** How a settled call reads in a refusal: `approved by alice at …`. */
export function describeDecision(decision: Decision): string {
  if (decision.decision === 'timeout') return `denied at ${decision.at}: ${decision.reason ?? 'timed out'}`;
  if (decision.decision === 'deny') {
    return `denied by ${decision.by} at ${decision.at}${decision.reason ? `: ${decision.reason}` : ''}`;
  }
  return `approved by ${decision.by} at ${decision.at}${decision.editedArgs ? ' with edited arguments' : ''}`;
}

/**
 * The calls a workflow (a cycle, or an agent mirroring its cycles) waits on, and what was decided: the rules of
 * `decide`'s validator in one pure place. Mutated only by workflow code, one message at a time, so of two decisions on
 * one call the first to arrive marks it and the second is refused.
 */
export class ApprovalBook {
  private readonly entries = new Map<string, BookEntry>();

  /** `where` names the workflow in refusals: `cycle agent/a/cycle/3`, `agent a`. */
  constructor(private readonly where: string) {}

  add(pending: PendingApproval): void {
    if (!this.entries.has(pending.callId)) this.entries.set(pending.callId, { pending });
  }

  get(callId: string): BookEntry | undefined {
    return this.entries.get(callId);
  }

  /** Calls still waiting (being decided included), oldest first. */
  pending(): PendingApproval[] {
    return [...this.entries.values()].filter((entry) => !entry.decision).map((entry) => entry.pending);
  }

  get isWaiting(): boolean {
    return this.pending().length > 0;
  }

  /**
   * The call `args.callId` names, or the one waiting when it names none; refused when that call is unknown, decided
   * or being decided, or when no call or several wait and none is named.
   */
  target(args: Pick<DecisionArgs, 'callId'>): Target {
    const waiting = this.pending();
    const { callId } = args;
    if (callId === undefined) {
      if (waiting.length === 0) return { ok: false, refusal: `no call waits for a decision on ${this.where}` };
      if (waiting.length > 1) {
        const ids = waiting.map((call) => `${call.callId} (${call.tool})`).join(', ');
        return {
          ok: false,
          refusal: `${waiting.length} calls wait for a decision on ${this.where}: name one of ${ids}`,
        };
      }
    }
    const id = callId ?? (waiting[0] as PendingApproval).callId;
    const entry = this.entries.get(id);
    if (!entry) {
      const ids = waiting.length > 0 ? ` (waiting: ${waiting.map((call) => call.callId).join(', ')})` : '';
      return { ok: false, refusal: `no call ${JSON.stringify(id.slice(0, 200))} on ${this.where}${ids}` };
    }
    if (entry.decision) {
      return { ok: false, refusal: `call ${id} was already decided: ${describeDecision(entry.decision)}` };
    }
    if (entry.deciding !== undefined) {
      return {
        ok: false,
        refusal: `call ${id} is already being decided by ${entry.deciding}; this decision is refused`,
      };
    }
    return { ok: true, entry };
  }

  /** Marks the call as being decided, so a second decision is refused while the first is checked and applied. */
  begin(callId: string, by: string): void {
    const entry = this.entries.get(callId);
    if (entry && !entry.decision) entry.deciding = by;
  }

  /** A decision that did not apply (its edited arguments were refused): the call waits again. */
  abandon(callId: string): void {
    const entry = this.entries.get(callId);
    if (entry) delete entry.deciding;
  }

  /** Records the decision that applies; false, changing nothing, when the call was decided already or is unknown. */
  settle(callId: string, decision: Decision): boolean {
    const entry = this.entries.get(callId);
    if (!entry || entry.decision) return false;
    delete entry.deciding;
    entry.decision = decision;
    return true;
  }

  /** Forgets every call: the cycles that waited on them have ended. */
  clear(): void {
    this.entries.clear();
  }
}
