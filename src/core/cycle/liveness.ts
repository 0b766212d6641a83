import { z } from 'zod';
import { getterOf } from '../shareable';

/**
 * How long an activity may go without a heartbeat before the server gives its attempt to another worker. Activities
 * heartbeat every second (activities/heartbeat.ts) and workers send them at that pace, so a worker killed mid-call
 * is noticed within this long, while a busy event loop has three seconds of slack before an attempt is lost.
 */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 4000;

/** The kinds of activity that can take long, each with a heartbeat timeout of its own. */
export type LivenessKind = 'model' | 'tool' | 'verification';

const heartbeatMs = z.number().int().min(1000).max(600_000);

/** An agent's `heartbeatTimeoutMs` setting: by activity kind, each optional. */
export const HeartbeatTimeoutsSchema = getterOf(
  z.strictObject({
    model: heartbeatMs.optional(),
    tool: heartbeatMs.optional(),
    verification: heartbeatMs.optional(),
  }),
);
export type HeartbeatTimeouts = z.output<ReturnType<typeof HeartbeatTimeoutsSchema>>;

/** The heartbeat timeout of `kind`: its setting, else the default. */
export function heartbeatTimeoutOf(input: { heartbeatTimeoutMs?: HeartbeatTimeouts }, kind: LivenessKind): number {
  return input.heartbeatTimeoutMs?.[kind] ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
}
