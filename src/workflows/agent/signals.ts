import { DirectiveTextSchema, WakeArgsSchema } from '../../core/agent/agent';
import { signalArgs } from '../../common/signal-args';

/*
 * The agent's signals as they arrive. A signal has no caller to refuse and a throw in its handler would fail the
 * workflow task for good, so a malformed one is dropped with a warning in the worker's log.
 */

/** The `wake` signal's tasks and trigger; no argument at all is a manual wake. */
export function wakeOf(raw: unknown) {
  return signalArgs(WakeArgsSchema(), raw ?? {}, 'wake');
}

/** The `directive` signal's text, as sent; `dropped` hears why a malformed or oversize one was not. */
export function directiveOf(raw: unknown, dropped: (reason: string) => void): string | undefined {
  return signalArgs(DirectiveTextSchema(), raw, 'directive', dropped);
}
