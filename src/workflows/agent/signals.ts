import { log } from '@temporalio/workflow';
import { DirectiveTextSchema, WakeArgsSchema } from '../../core/agent/agent';
import { KEPT_DIRECTIVES } from '../../core/agent/directives';
import { signalArgs } from '../../common/signal-args';

/*
 * The agent's signals as they arrive. A signal has no caller to refuse and a throw in its handler would fail the
 * workflow task for good, so a malformed one is dropped with a warning in the worker's log.
 */

/** The `wake` signal's tasks and trigger; no argument at all is a manual wake. */
export function wakeOf(raw: unknown) {
  return signalArgs(WakeArgsSchema(), raw ?? {}, 'wake');
}

/** The `directive` signal's text, as sent. */
export function directiveOf(raw: unknown): string | undefined {
  return signalArgs(DirectiveTextSchema(), raw, 'directive');
}

/** Whether one more directive may be held: held ones ride every continue-as-new, so a flood must not grow it. */
export function mayHold(held: readonly string[]): boolean {
  if (held.length < KEPT_DIRECTIVES) return true;
  log.warn(`dropped a directive signal: ${KEPT_DIRECTIVES} directives are held already`);
  return false;
}
