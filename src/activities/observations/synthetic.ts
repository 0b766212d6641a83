import { createHash } from 'node:crypto';
import { type Observation, STORED_NOTE_CHARS } from '../../core/tools/observation';
import type { EntryKind } from './entry';
import type { EntryContent } from './content-cache';
import { TextView, pairSafeOffset } from './text-view';

/** A text summary keeps this many characters of the start and of the end. */
export const SUMMARY_EDGE_CHARS = 500;
/** The synthetic observation stays within this many bytes of JSON (under 2 KB), whatever it stands for. */
export const SYNTHETIC_MAX_BYTES = STORED_NOTE_CHARS;
/** The synthetic observation's `_note` to the model. */
export const SYNTHETIC_NOTE =
  'Large observation saved in scratchpad. To read it in full or partially, use the scratchpad_read tool.';

const METADATA_VALUE_CHARS = 200;
// Small enough that 150 four-byte characters on each side of the summary still fit.
const METADATA_MAX_BYTES = 300;
const ERROR_CHARS = 300;

/** Bytes of an observation's JSON: what is compared with the offload threshold. */
export function observationBytes(observation: Observation): number {
  return Buffer.byteLength(JSON.stringify(observation), 'utf-8');
}

/** Whether an observation's JSON is over `thresholdBytes`. */
export function isLargeObservation(observation: Observation, thresholdBytes: number): boolean {
  // Every character is at least one byte: a long string result decides without serializing megabytes.
  if (typeof observation.result === 'string' && observation.result.length > thresholdBytes) return true;
  return observationBytes(observation) > thresholdBytes;
}

/** First `head` and last `tail` characters with the exact count omitted between them. */
export function headTailSummary(view: TextView, head = SUMMARY_EDGE_CHARS, tail = SUMMARY_EDGE_CHARS): string {
  if (view.length <= head + tail) return view.text;
  const omitted = view.length - head - tail;
  return `${view.slice(0, head)}\n[... ${omitted} characters omitted ...]\n${view.slice(view.length - tail, view.length)}`;
}

/** The summary of binary content: size and fingerprint, no preview. */
export function binarySummary(bytes: Buffer): string {
  return `[BINARY: ${bytes.byteLength} bytes, sha256=${createHash('sha256').update(bytes).digest('hex')}]`;
}

/** What the synthetic observation says about its entry. */
export interface StoredFacts {
  id: string;
  kind: EntryKind;
  sizeBytes: number;
  step: number | null;
}

/**
 * The synthetic observation (design.md, The synthetic observation): ok, scratchpad_id, size_bytes, kind, summary,
 * metadata (the observation's other fields) and _note. The summary is a balanced head and tail of whole code points:
 * 500 + 500 when they fit {@link SYNTHETIC_MAX_BYTES}, otherwise as many on each side as fit, for any script.
 */
export function syntheticObservation(facts: StoredFacts, content: EntryContent, observation: Observation): Observation {
  const { ok, result: _result, error, ...rest } = observation;
  const base = {
    ok,
    ...(!ok && error !== undefined ? { error: cut(error, ERROR_CHARS) } : {}),
    scratchpad_id: facts.id,
    size_bytes: facts.sizeBytes,
    kind: facts.kind,
  };
  const metadata = compactMetadata(rest);
  const note =
    facts.step === null
      ? SYNTHETIC_NOTE
      : `${SYNTHETIC_NOTE} To pass its full content to another tool, write {{step${facts.step}.content}} in its arguments.`;
  const build = (summary: string): Observation => ({ ...base, summary, metadata, _note: note });
  if (!(content instanceof TextView)) return build(binarySummary(content));
  const fits = (edge: number): boolean =>
    observationBytes(build(headTailSummary(content, edge, edge))) <= SYNTHETIC_MAX_BYTES;
  // Bytes grow with the edge, so a binary search finds the widest balanced summary that fits.
  let low = 0;
  let high = SUMMARY_EDGE_CHARS;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return build(headTailSummary(content, low, low));
}

function cut(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, pairSafeOffset(text, chars))}…`;
}

function compactMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const compact = Object.fromEntries(
    Object.entries(metadata).map(([key, value]) => {
      if (typeof value === 'string') return [key, cut(value, METADATA_VALUE_CHARS)];
      if (value !== null && typeof value === 'object') {
        const json = JSON.stringify(value);
        return [key, json.length <= METADATA_VALUE_CHARS ? value : cut(json, METADATA_VALUE_CHARS)];
      }
      return [key, value];
    }),
  );
  const bytes = Buffer.byteLength(JSON.stringify(compact), 'utf-8');
  if (bytes <= METADATA_MAX_BYTES) return compact;
  return { _omitted: `${bytes} bytes of metadata; a {{stepN.field}} reference passes any field whole` };
}
