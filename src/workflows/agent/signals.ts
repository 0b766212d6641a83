import { DirectiveTextSchema, WakeArgsSchema } from '../../core/agent/agent';
import { log } from '@temporalio/workflow';
import { directiveRefusal } from '../../core/cycle/directive-caps';
import { parsedOrDropped } from '../../common/parse-or-drop';
import { telemetryHook } from '../../common/telemetry-hook';

/*
 * The agent's signals as they arrive. A signal has no caller to refuse and a throw in its handler would fail the
 * workflow task for good, so a malformed one is dropped with a warning in the worker's log.
 */

/** The `wake` signal's tasks and trigger; no argument at all is a manual wake. */
export function wakeOrDropped(raw: unknown) {
  return parsedOrDropped(WakeArgsSchema(), raw ?? {}, 'wake');
}

/**
 * The `directive` signal's text, as sent, when it is well formed and may join the directives not yet shown
 * (`pending`: held, and given to the running cycle); otherwise undefined, and `dropped` hears why.
 */
export function directiveOrDropped(
  raw: unknown,
  pending: readonly string[],
  noted: (reason: string) => void,
): string | undefined {
  const dropped = (reason: string) => {
    telemetryHook()?.directiveDropped();
    noted(reason);
  };
  const text = parsedOrDropped(DirectiveTextSchema(), raw, 'directive', dropped);
  const refusal = text === undefined ? null : directiveRefusal(pending, text);
  if (refusal === null) return text;
  log.warn(`dropped a directive signal: ${refusal}`);
  dropped(refusal);
  return undefined;
}
