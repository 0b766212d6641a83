import { DirectiveTextSchema, WakeArgsSchema } from '../../core/agent/agent';
import { log } from '@temporalio/workflow';
import { holdRefusal } from '../../core/agent/directives';
import { signalArgs } from '../../common/signal-args';

/*
 * The agent's signals as they arrive. A signal has no caller to refuse and a throw in its handler would fail the
 * workflow task for good, so a malformed one is dropped with a warning in the worker's log.
 */

/** The `wake` signal's tasks and trigger; no argument at all is a manual wake. */
export function wakeOf(raw: unknown) {
  return signalArgs(WakeArgsSchema(), raw ?? {}, 'wake');
}

/**
 * The `directive` signal's text, as sent, when it is well formed and may join the directives not yet shown
 * (`pending`); otherwise undefined, and `dropped` hears why.
 */
export function directiveOf(
  raw: unknown,
  pending: readonly string[],
  dropped: (reason: string) => void,
): string | undefined {
  const text = signalArgs(DirectiveTextSchema(), raw, 'directive', dropped);
  const refusal = text === undefined ? null : holdRefusal(pending, text);
  if (refusal === null) return text;
  log.warn(`dropped a directive signal: ${refusal}`);
  dropped(refusal);
  return undefined;
}
