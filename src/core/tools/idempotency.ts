import { z } from 'zod';
import { getterOf } from '../shareable';
import { headCodePoints } from '../text';
import type { Observation } from './observation';

/*
 * Side effects at most once where the tool can tell (design.md, Tools). Every call of a tool gets a key made in
 * workflow code from the cycle id and the call's place in the cycle, so every attempt of the call, on any worker,
 * carries the same key, and a tool that remembers the keys it applied can skip a repeat. A call that runs at most
 * once (`retry: false`, or approved by a person) and whose attempt died without a result is recorded as an unknown
 * outcome: whether it took effect only the tool's side can tell.
 */

/** The `_meta` field an MCP `tools/call` carries the key in (the MCP spec's `prefix/name` form). */
export const IDEMPOTENCY_META_KEY = 'durable-scratchpad/idempotency-key';

/** Longest a key may be: a cycle id (at most 1000 characters) and the call's place. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 1100;

/** The key of the `n`-th call (from 1) a cycle runs at `step`: `agent/a/cycle/3/call/2.1`. */
export function idempotencyKey(cycleId: string, step: number, n: number): string {
  return `${cycleId}/call/${step}.${n}`;
}

/**
 * The key of a call whose input has none (a cycle that started on a worker from before keys): still the same for
 * every attempt, though two calls at one step (a `write_files`) share it.
 */
export function fallbackIdempotencyKey(cycleId: string, step: number): string {
  return `${cycleId}/call/${step}`;
}

/** Most unknown outcomes a cycle's result and an agent's status list, newest kept. */
export const KEPT_UNKNOWN_OUTCOMES = 20;
const CAUSE_CHARS = 300;

/** A call that may or may not have taken effect: its only attempt died without a result. */
export const UnknownOutcomeSchema = getterOf(
  z.object({
    cycleId: z.string(),
    tool: z.string(),
    /** The call's idempotency key, which the tool saw: where to check whether it took effect. */
    key: z.string(),
    iteration: z.number(),
    /** Why no result came back (a heartbeat or start-to-close timeout: the worker died or the call hung). */
    cause: z.string(),
  }),
);
export type UnknownOutcome = z.infer<ReturnType<typeof UnknownOutcomeSchema>>;

/** What the model is told about a call whose outcome is unknown: what happened, its key, and to check first. */
export function unknownOutcomeObservation(
  why: string,
  outcome: Pick<UnknownOutcome, 'key' | 'cause'>,
  rerun?: string,
): Observation {
  const cause = headCodePoints(outcome.cause, CAUSE_CHARS);
  const error =
    `${why}. Outcome unknown: the call may or may not have taken effect (no result came back: ${cause}). ` +
    `Its idempotency key is ${outcome.key}: check whether it took effect before you repeat the call` +
    (rerun ? `. ${rerun}` : '.');
  return { ok: false, error, outcome: 'unknown', idempotency_key: outcome.key, cause };
}

/** The key and cause an observation {@link unknownOutcomeObservation} made carries; undefined for a known outcome. */
export function unknownOutcomeOf(
  observation: Observation | undefined,
): Pick<UnknownOutcome, 'key' | 'cause'> | undefined {
  if (observation?.outcome !== 'unknown' || typeof observation.idempotency_key !== 'string') return undefined;
  return { key: observation.idempotency_key, cause: typeof observation.cause === 'string' ? observation.cause : '' };
}
