import { payloadBytes } from '../payload';
import { DIRECTIVES_BUDGET_BYTES } from './input';

/**
 * Why `text` may not join `pending` directives, at most `maxCount` of them and {@link DIRECTIVES_BUDGET_BYTES} as
 * JSON, or null. Directives ride every later prompt, the cycle's result and the agent's continue-as-new until shown,
 * so a flood of them must not grow any of these.
 */
export function directiveRefusal(pending: readonly string[], text: string, maxCount: number): string | null {
  if (pending.length >= maxCount) return `${maxCount} directives are held already`;
  if (payloadBytes(pending) + payloadBytes(text) + 1 > DIRECTIVES_BUDGET_BYTES) {
    return `the directives held would pass ${DIRECTIVES_BUDGET_BYTES / 1024} KB`;
  }
  return null;
}
