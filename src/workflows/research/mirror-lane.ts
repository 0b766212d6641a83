import { condition, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { MirroredEntry } from '../../activities/research/mirror';
import type { BoardEntry } from '../../core/research/board';
import { RESEARCH_BYTES } from '../../core/research/board-budget';
import { oldestWithin, payloadBytes } from '../../core/payload';
import { failureMessage } from '../../common/failure';
import type { ResearchRun } from './research-run';

/** Attempts at one batch while the run goes on: an outage ends in a note within seconds, never a failed run. */
const BATCH_ATTEMPTS = 4;
const { mirrorEntries } = proxyActivities<Activities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: BATCH_ATTEMPTS },
});
/** Attempts at the last batch: the run's completion waits for them. */
const FINAL_ATTEMPTS = 2;
const final = proxyActivities<Activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumAttempts: FINAL_ATTEMPTS },
});

/** How long the run's end waits for a batch in flight before its last one. */
const FINAL_WAIT_MS = 20_000;

/** The Redis mirror as the supervisor's loop drives it. */
export interface Mirroring {
  /** After each evaluation: the lane starts a batch and returns; the loop never waits on the mirror. */
  afterEvaluation(): void;
  /** At the run's end: the last entries and the TTL, in a bounded time. */
  atEnd(): Promise<void>;
}

/** The run's mirror, when it has one (`SCRATCHPAD_BOARD`). */
export function startMirroring(run: ResearchRun): Mirroring | undefined {
  const url = run.input.mirror;
  return url ? new MirrorLane(run, url) : undefined;
}

/**
 * Redis is a mirror, never a dependency: batches go out beside the loop, one in flight at a time, each retried a
 * bounded number of times; a batch that fails is given up with a note, and the next one (entries keep landing)
 * tries again from the first entry not mirrored, so the mirror catches up once Redis is back.
 */
class MirrorLane implements Mirroring {
  private busy = false;

  constructor(
    private readonly run: ResearchRun,
    private readonly url: string,
  ) {
    run.mirror ??= { state: 'mirroring' };
  }

  afterEvaluation(): void {
    if (this.busy || this.run.entries.length === this.run.mirrored) return;
    this.busy = true;
    // Not awaited: evaluation never waits on Redis. `drain` settles every failure itself.
    void this.drain(false).then(() => (this.busy = false));
  }

  async atEnd(): Promise<void> {
    if (this.busy && !(await condition(() => !this.busy, FINAL_WAIT_MS))) {
      const pending = this.run.entries.length - this.run.mirrored;
      this.run.note('mirror', `the mirror was still busy when the run ended: ${pending} entries not mirrored`);
      return;
    }
    this.busy = true;
    await this.drain(true);
    this.busy = false;
  }

  private async drain(last: boolean): Promise<void> {
    const send = last ? final.mirrorEntries : mirrorEntries;
    for (;;) {
      const pending = this.run.entries.slice(this.run.mirrored);
      if (pending.length === 0 && !last) return this.caughtUp();
      const batch = batchOf(pending);
      const ending = last && batch.length === pending.length;
      try {
        await send({ url: this.url, runId: this.run.input.runId, entries: batch, final: ending });
      } catch (error) {
        return this.giveUp(error, last ? FINAL_ATTEMPTS : BATCH_ATTEMPTS);
      }
      this.run.mirrored += batch.length;
      if (ending) return this.caughtUp();
    }
  }

  private caughtUp(): void {
    if (this.run.mirror?.state === 'gave up') {
      this.run.note('mirror', `the mirror caught up: all ${this.run.mirrored} entries mirrored after an outage`);
    }
    this.run.mirror = { state: 'caught up' };
  }

  private giveUp(error: unknown, attempts: number): void {
    const reason = failureMessage(error).slice(0, 200);
    const exhausted = (error as { retryState?: unknown }).retryState === 'MAXIMUM_ATTEMPTS_REACHED';
    const pending = this.run.entries.length - this.run.mirrored;
    const after = exhausted ? `after ${attempts} attempts` : 'at a failure it does not retry';
    this.run.note('mirror', `mirror gave up ${after}: ${reason}; ${pending} entries not mirrored`);
    this.run.mirror = { state: 'gave up', error: reason };
  }
}

/**
 * The oldest pending entries that fit one activity's share of the budget. An entry larger than that alone (a
 * STRATEGY of thousands of facts) goes as a stub pointing to the board, so the mirror never stalls behind it.
 */
function batchOf(pending: readonly BoardEntry[]): MirroredEntry[] {
  const batch = oldestWithin(pending, RESEARCH_BYTES.mirrorBatch);
  if (batch.length > 0 || pending.length === 0) return batch;
  const { id, type, author, turn, createdAt } = pending[0] as BoardEntry;
  const omitted = `${payloadBytes(pending[0])} bytes, too large to mirror: read it with the run's board query`;
  return [{ id, type, author, turn, createdAt, body: { omitted } }];
}
