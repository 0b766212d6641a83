import { upsertMemo } from '@temporalio/workflow';
import { payloadRefusal } from '../../core/payload';
import { DETAILS_BYTES } from './details-text';

/**
 * Records, at a run's end, its outcome line and details in its memo: the Web UI shows a closed workflow's memo with
 * no worker running, where its current details (a query) need one.
 */
export function recordOutcomeMemo(line: string, details: string, extra: Record<string, string> = {}): void {
  // Both are capped where they are rendered; this only keeps a memo past its share of a payload from ever being sent.
  const memo = { outcome: line, details, ...extra };
  upsertMemo(payloadRefusal(memo, 'the outcome memo', 2 * DETAILS_BYTES) ? { outcome: line, ...extra } : memo);
}
