import { z } from 'zod';
import { headCodePoints } from '../text';
import { getterOf } from '../shareable';
import { MAX_IDEMPOTENCY_KEY_CHARS } from './idempotency';

/** What a tool returned, as the model and the notes see it. Extra fields (metadata) pass through. */
export const ObservationSchema = getterOf(
  z.looseObject({
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z.string().optional(),
  }),
);
export type Observation = z.infer<ReturnType<typeof ObservationSchema>>;

export const ToolCallInputSchema = getterOf(
  z.object({
    cycleId: z.string().min(1).max(1000),
    step: z.number().int().nonnegative(),
    name: z.string().min(1).max(200),
    args: z.record(z.string(), z.unknown()),
    /** The cycle's agent: entries it stored with no expiry (archives) stay readable by its later cycles. */
    agentId: z.string().max(1000).optional(),
    /** A research investigation's board (the supervisor's id): `web_fetch` refuses the URLs it has tombstoned. */
    boardId: z.string().min(1).max(1000).optional(),
    /** A staged run's stage: `fs_write` also stores what it wrote under the run, `fs_read` restores it first. */
    stagedRunId: z.string().min(1).max(1000).optional(),
    /** The same for every attempt of the call (core/tools/idempotency.ts); absent from cycles before keys. */
    idempotencyKey: z.string().min(1).max(MAX_IDEMPOTENCY_KEY_CHARS).optional(),
  }),
);
export type ToolCallInput = z.infer<ReturnType<typeof ToolCallInputSchema>>;

/** A small tool result is cut to this many characters in notes (design.md, Notes). */
export const NOTE_RESULT_CHARS = 1500;

/**
 * A synthetic observation is built to fit this many bytes, so its note keeps it whole (id, summary and `_note`):
 * a 500 + 500 summary does not fit {@link NOTE_RESULT_CHARS} once wrapped in JSON.
 */
export const STORED_NOTE_CHARS = 2000;

/** Offered once the cycle has offloaded an observation or the state points at an archive. */
export const SCRATCHPAD_READ = 'scratchpad_read';
/** Characters (code points) a `scratchpad_read` of text returns unless told otherwise. */
export const READ_DEFAULT_CHARS = 2000;
/** Most characters one `scratchpad_read` of text returns; the rest is reached with further reads. */
export const READ_MAX_CHARS = 4000;
/** Most bytes one `scratchpad_read` of a binary entry returns (as base64, about {@link READ_MAX_CHARS} characters). */
export const READ_MAX_BYTES = 3000;
/**
 * Most characters a `full` read returns: twice the default 4 KB threshold, so an entry a little over it reads whole.
 * The read serves at most twice the configured threshold, and never more than this, so notes hold it whole.
 */
export const READ_FULL_MAX_CHARS = 8192;
/** A `scratchpad_read` result is what the model asked to see, so notes keep all of it: its slice plus its fields. */
export const READ_NOTE_CHARS = READ_FULL_MAX_CHARS + 500;

/** True for the synthetic observation: a large result kept in the observation store, with its id. */
export function isStoredObservation(observation: Observation): boolean {
  return typeof observation.scratchpad_id === 'string' && typeof observation.summary === 'string';
}

/** Work tools to offer: `scratchpad_read` joins them once there is something stored to read. */
export function offeredWorkTools(tools: readonly string[], hasStoredObservations: boolean): string[] {
  return hasStoredObservations && !tools.includes(SCRATCHPAD_READ) ? [...tools, SCRATCHPAD_READ] : [...tools];
}

/** The text of an observation as it appears after `→` in a `[TOOL]` note. */
export function observationText(observation: Observation): string {
  // A failed tool's stored output still has an id the model needs to read it.
  if (!observation.ok && isStoredObservation(observation)) return JSON.stringify(observation);
  if (!observation.ok) return `ERROR: ${observation.error ?? 'tool failed'}`;
  const keys = Object.keys(observation).filter((key) => key !== 'ok');
  if (keys.length === 1 && typeof observation.result === 'string') return observation.result;
  const { ok: _ok, ...rest } = observation;
  return JSON.stringify(keys.length === 1 ? observation.result : rest);
}

/** A read's fields, then its slice as it is: JSON escapes would make the slice longer than the note allows. */
function readText(observation: Observation): string {
  const { ok: _ok, result, ...fields } = observation;
  return `${JSON.stringify(fields)}\n${String(result)}`;
}

/** {@link observationText} cut for notes: at {@link NOTE_RESULT_CHARS}, or {@link READ_NOTE_CHARS} for a read. */
export function observationExcerpt(name: string, observation: Observation): string {
  if (name !== SCRATCHPAD_READ) {
    const limit = isStoredObservation(observation) ? STORED_NOTE_CHARS : NOTE_RESULT_CHARS;
    return headCodePoints(observationText(observation), limit);
  }
  const isSlice = observation.ok && typeof observation.result === 'string';
  return headCodePoints(isSlice ? readText(observation) : observationText(observation), READ_NOTE_CHARS);
}

/** `[TOOL] name(args) → result`, the result cut by {@link observationExcerpt}. */
export function toolNote(name: string, args: unknown, observation: Observation): string {
  return `[TOOL] ${name}(${JSON.stringify(args)}) → ${observationExcerpt(name, observation)}`;
}
