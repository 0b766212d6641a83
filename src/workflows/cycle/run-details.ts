import { patched, upsertMemo } from '@temporalio/workflow';
import { payloadRefusal } from '../../core/payload';
import { DETAILS_BYTES } from './details-text';

/**
 * Records, at a run's end, its outcome line and details in its memo: the Web UI shows a closed workflow's memo with
 * no worker running, where its current details (a query) need one. Behind a patch: histories from before it have
 * no such command. Returns whether it recorded them, so a caller may guard other new commands alongside.
 */
export function recordOutcomeMemo(line: string, details: string): boolean {
  // workflows/compat.ts: runs from before it end with no memo of their outcome.
  if (!patched('ui-outcome-memo')) return false;
  // Both are capped where they are rendered; this only keeps a memo past its share of a payload from ever being sent.
  const memo = { outcome: line, details };
  upsertMemo(payloadRefusal(memo, 'the outcome memo', 2 * DETAILS_BYTES) ? { outcome: line } : memo);
  return true;
}
