import { utf8Length } from './text';

/*
 * Temporal refuses a payload over 2 MB and terminates a workflow whose start, continue-as-new or child input passes
 * that; a query result over it fails. Everything a workflow sends on is measured against this budget before it is
 * sent: half the limit, which leaves room for the encryption codec's envelope, metadata and the rest of the request.
 */

/** Largest JSON, in UTF-8 bytes, a workflow puts in one payload it sends (input, result, query answer). */
export const PAYLOAD_BUDGET_BYTES = 1024 * 1024;

/** Size of `value` as the JSON converter encodes it, in UTF-8 bytes. */
export function payloadBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : utf8Length(json);
}

/** Why `value` may not be sent as `what`, or null when it fits `budget`. */
export function payloadRefusal(value: unknown, what: string, budget = PAYLOAD_BUDGET_BYTES): string | null {
  const bytes = payloadBytes(value);
  if (bytes <= budget) return null;
  return `${what} would be ${bytes} bytes, over the payload budget of ${budget}`;
}

/** The longest run of newest items of `items` (its end) whose JSON array fits `budget` bytes, order kept. */
export function newestWithin<T>(items: readonly T[], budget: number): T[] {
  let used = 1; // the brackets, less the comma the first item does not need
  let start = items.length;
  while (start > 0) {
    const size = payloadBytes(items[start - 1]) + 1;
    if (used + size > budget) break;
    used += size;
    start--;
  }
  return items.slice(start);
}

/** The longest run of oldest items of `items` whose JSON array fits `budget` bytes: a queue served from its front. */
export function oldestWithin<T>(items: readonly T[], budget: number): T[] {
  let used = 1; // the brackets, less the comma the first item does not need
  let end = 0;
  while (end < items.length) {
    const size = payloadBytes(items[end]) + 1;
    if (used + size > budget) break;
    used += size;
    end++;
  }
  return items.slice(0, end);
}
