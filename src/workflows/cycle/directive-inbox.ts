import { log } from '@temporalio/workflow';
import { directiveRefusal } from '../../core/cycle/directive-caps';
import { telemetryHook } from '../../common/telemetry-hook';

/** A cycle's directives: those given at its start and signalled since, each shown from the iteration after it came. */
export class DirectiveInbox {
  private readonly waiting: string[];
  private readonly shown: { text: string; iteration: number }[] = [];
  private dropped: { count: number; reason?: string } = { count: 0 };

  constructor(given: readonly string[]) {
    this.waiting = [...given];
  }

  /** A directive signal: the model sees it from its next iteration on. Past the cap one is dropped, and noted. */
  receive(text: string): void {
    const refusal = directiveRefusal([...this.shown.map((entry) => entry.text), ...this.waiting], text);
    if (refusal) {
      log.warn(`dropped a directive signal: ${refusal}`);
      this.drop(refusal);
    } else this.waiting.push(text);
  }

  /** A directive signal not taken (malformed, oversize, past the cap): one note says so (see {@link droppedNote}). */
  drop(reason: string): void {
    telemetryHook()?.directiveDropped();
    this.dropped.count++;
    this.dropped.reason ??= reason;
  }

  /** Every directive so far, marking the new ones as first seen at `iteration`. */
  showAt(iteration: number): string[] {
    for (const text of this.waiting.splice(0)) this.shown.push({ text, iteration });
    return this.shown.map((entry) => entry.text);
  }

  /** The note on the signals dropped since it was last asked, if any. */
  droppedNote(): string | undefined {
    const { count, reason } = this.dropped;
    if (count === 0) return undefined;
    this.dropped = { count: 0 };
    return `[DIRECTIVE] dropped ${count === 1 ? 'a directive signal' : `${count} directive signals`}: ${reason}`;
  }

  /** The directives shown, with the iteration that first showed each. */
  get log(): { text: string; iteration: number }[] {
    return [...this.shown];
  }
}
