import { utf8Length } from './text';

/*
 * The Temporal server refuses a start or a signal with a payload over its limit (`limit.blobSize.error`), terminates a
 * workflow whose continue-as-new, child or activity input passes it, and fails a query whose result does. Everything a
 * workflow sends on is measured against this budget before it is sent.
 */

/** Largest JSON, in UTF-8 bytes, a workflow puts in one payload it sends (input, result, query answer). */
export const PAYLOAD_BUDGET_BYTES = 896 * 1024;

/*
 * Temporal's own default is 2 MB, which admits a 1 MB signal no handler of ours takes (a directive is at most 2,000
 * characters): a few of them arriving while a workflow task runs pass the server's 2 MB of buffered events, and the
 * server force-closes that task. Below 1 MB, such a message is refused to its sender instead. Above the budget by
 * 64 KB, for what the budget does not count: the encryption codec's envelope (~100 bytes) and payload metadata; the
 * largest payloads no budget measures (a model reply at the 128,000-token output cap, the tool call it carries) stay
 * well below it.
 */
/** The server's payload limit on the dev server and cluster the project starts (src/dev-server/payload-limits.ts). */
export const SERVER_PAYLOAD_LIMIT_BYTES = 960 * 1024;

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
