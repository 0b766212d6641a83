import Redis from 'ioredis';
import type { BoardEntry } from '../../core/research/board';

/** How long a finished run's mirror stays readable. */
export const MIRROR_TTL_SECONDS = 24 * 3600;

// Pushes an entry only the first time its id is seen, so a retried activity never duplicates it.
const PUSH_ONCE = `
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[2])
end
return 1`;

export interface MirrorRequest {
  url: string;
  runId: string;
  entries: BoardEntry[];
  /** The run ended: set the TTL. */
  final: boolean;
}

export function mirrorKey(runId: string): string {
  return `scratchpad:${runId}`;
}

/**
 * The Redis mirror of a research board (`SCRATCHPAD_BOARD`): every accepted entry `RPUSH`ed to `scratchpad:{runId}`,
 * idempotent by entry id; a TTL once the run ends. Temporal stays the authority; readers that do not speak it read
 * this. A connection per call: the supervisor mirrors once per evaluation, and nothing is left open in the worker.
 */
export async function mirrorEntries(request: MirrorRequest): Promise<{ pushed: number }> {
  const redis = new Redis(request.url, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const key = mirrorKey(request.runId);
    const ids = `${key}:ids`;
    for (const entry of request.entries) {
      await redis.eval(PUSH_ONCE, 2, key, ids, entry.id, JSON.stringify(entry));
    }
    if (request.final) {
      await redis.expire(key, MIRROR_TTL_SECONDS);
      await redis.expire(ids, MIRROR_TTL_SECONDS);
    }
    return { pushed: request.entries.length };
  } finally {
    redis.disconnect();
  }
}
