import type { AgentInput, AgentStatus, ParsedAgentInput } from '../../core/agent/agent';
import { keepLast } from '../../core/agent/agent';
import {
  KEPT_REWINDS,
  type Origin,
  RewindArgsSchema,
  type RewindRecord,
  rewindRefusal,
} from '../../core/agent/time-travel';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { importViolation } from '../../core/scratchpad/state-caps';
import { validate } from './validators';

/**
 * Where the agent's memory came from, if it was forked, and the rewinds it went through: kept for the agent's life,
 * carried across continue-as-new, shown by `status` (and so by `export`).
 */
export class TimeTravel {
  readonly origin: Origin | undefined;
  private rewinds: RewindRecord[];

  constructor(input: ParsedAgentInput) {
    this.origin = input.origin;
    this.rewinds = input.handover?.rewinds ?? [];
  }

  /** Records the rewind the `rewind` update asks for, at `at`; returns the state to adopt and the record. */
  rewind(args: unknown, at: Date): { state: Scratchpad; record: RewindRecord } {
    const { to, state, by } = RewindArgsSchema().parse(args);
    const record = { to, at: at.toISOString(), by };
    this.rewinds = keepLast([...this.rewinds, record], KEPT_REWINDS);
    return { state, record };
  }

  /** What `status` adds: nothing for an agent neither forked nor rewound, as before either existed. */
  status(): Pick<AgentStatus, 'origin' | 'rewinds'> {
    return { ...(this.origin ? { origin: this.origin } : {}), ...this.recorded() };
  }

  /** What the memo adds: the origin, readable with no worker. Nothing otherwise, so older histories replay alike. */
  memo(): { origin?: Origin } {
    return this.origin ? { origin: this.origin } : {};
  }

  /** `input` with the origin and the rewinds, for the next run. */
  carry(input: AgentInput): AgentInput {
    const handover = input.handover && { ...input.handover, ...this.recorded() };
    return { ...input, ...this.memo(), ...(handover ? { handover } : {}) };
  }

  private recorded(): { rewinds?: RewindRecord[] } {
    return this.rewinds.length > 0 ? { rewinds: [...this.rewinds] } : {};
  }
}

/** The `rewind` update's validator: a valid state within the caps, to a cycle the agent ran, with none running. */
export function validateRewind(status: Pick<AgentStatus, 'cycleCount' | 'running'>, args: unknown): void {
  validate(RewindArgsSchema(), args);
  const { to, state } = RewindArgsSchema().parse(args);
  const refusal = rewindRefusal(to, status) ?? importViolation(state);
  if (refusal) throw new Error(refusal);
}
