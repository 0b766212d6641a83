import { payloadBytes } from '../payload';
import { DIRECTIVES_BUDGET_BYTES, MAX_CYCLE_DIRECTIVES } from './input';

/**
 * Why `text` may not join the directives held (`pending`), or null: at most {@link MAX_CYCLE_DIRECTIVES} of them and
 * {@link DIRECTIVES_BUDGET_BYTES} as JSON. Directives ride every later prompt, the cycle's input and result and the
 * agent's continue-as-new until shown, so a flood of them must not grow any of these. The one cap wherever directives
 * are held: a cycle, a child cycle's starter, an agent between cycles.
 */
export function directiveRefusal(pending: readonly string[], text: string): string | null {
  if (pending.length >= MAX_CYCLE_DIRECTIVES) return `${MAX_CYCLE_DIRECTIVES} directives are held already`;
  if (payloadBytes(pending) + payloadBytes(text) + 1 > DIRECTIVES_BUDGET_BYTES) {
    return `the directives held would pass ${DIRECTIVES_BUDGET_BYTES / 1024} KB`;
  }
  return null;
}
