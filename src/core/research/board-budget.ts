import { PAYLOAD_BUDGET_BYTES, newestWithin, oldestWithin, payloadBytes } from '../payload';
import { headCodePoints } from '../text';
import type { BoardEntry } from './board-schema';

/*
 * The board lives in the supervisor's state and leaves it in payloads: the continue-as-new handover, the mirror's
 * activity input, the `board` and `status` answers, the result. Each share below keeps one of them under the payload
 * budget (core/payload.ts), whatever users and models send.
 */
export const RESEARCH_BYTES = {
  /** Board size from which directives are refused: what users add stops well short of the handover's budget. */
  directiveRoom: PAYLOAD_BUDGET_BYTES / 2,
  /** Board size from which the run ends incomplete: past it no continue-as-new could carry the board. */
  board: (PAYLOAD_BUDGET_BYTES * 7) / 8,
  /** Entries in one mirror activity. */
  mirrorBatch: PAYLOAD_BUDGET_BYTES / 4,
  /** Tombstoned URLs in a worker's input; its `web_fetch` asks the board for every one anyway. */
  workerTombstones: 64 * 1024,
  /** The final board a run's result carries, beside its answer and what is missing. */
  resultBoard: PAYLOAD_BUDGET_BYTES / 2,
} as const;

/** Characters of a long text kept when an older entry is cut to make an answer fit. */
const KEPT_CHARS = 200;

function cutText(text: string): string {
  if (text.length <= KEPT_CHARS + 80) return text;
  return `${headCodePoints(text, KEPT_CHARS)}… [cut for size from ${text.length} characters]`;
}

/** The entry with its long free text (goal, directives, reasons, answer) cut; URLs, ids and values stay whole. */
export function cutEntry(entry: BoardEntry): BoardEntry {
  switch (entry.type) {
    case 'STRATEGY':
      return {
        ...entry,
        body: { ...entry.body, goal: cutText(entry.body.goal), directives: entry.body.directives.map(cutText) },
      };
    case 'USER_DIRECTIVE':
      return { ...entry, body: { text: cutText(entry.body.text) } };
    case 'UNVERIFIED':
      return { ...entry, body: { ...entry.body, reason: cutText(entry.body.reason) } };
    case 'FAILED_URL':
    case 'TOMBSTONE':
      return { ...entry, body: { ...entry.body, failureReason: cutText(entry.body.failureReason) } } as BoardEntry;
    case 'SYNTHESIS':
      return { ...entry, body: { ...entry.body, answer: cutText(entry.body.answer) } };
    default:
      return entry;
  }
}

/**
 * The board as an answer within `budget` bytes: whole when it fits; else the long text of the oldest entries cut
 * first (newest kept whole, so what just landed reads in full); as a last resort only the newest entries that fit.
 */
export function boardWithin(entries: readonly BoardEntry[], budget = PAYLOAD_BUDGET_BYTES): BoardEntry[] {
  let bytes = payloadBytes(entries);
  if (bytes <= budget) return [...entries];
  const fitted = [...entries];
  for (let index = 0; index < fitted.length && bytes > budget; index++) {
    const entry = fitted[index] as BoardEntry;
    const cut = cutEntry(entry);
    if (cut === entry) continue;
    bytes += payloadBytes(cut) - payloadBytes(entry);
    fitted[index] = cut;
  }
  return bytes <= budget ? fitted : newestWithin(fitted, budget);
}

/** `lines` within `budget` bytes, the first kept, and a last line saying how many were left out. */
export function linesWithin(lines: readonly string[], budget: number): string[] {
  if (payloadBytes(lines) <= budget) return [...lines];
  const kept = oldestWithin(lines, budget - 100);
  return [...kept, `… and ${lines.length - kept.length} more`];
}

/** A list of records within `budget` bytes, the first kept: the status's facts on a run of thousands. */
export function listWithin<T>(items: readonly T[], budget: number): T[] {
  return payloadBytes(items) <= budget ? [...items] : oldestWithin(items, budget);
}
