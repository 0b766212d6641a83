import { redisClass } from '../../common/redis-class';
import { z } from 'zod';
import type { BoardEntry } from '../../core/research/board';
import { ResearchError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';

/** How long a finished run's mirror stays readable. */
export const MIRROR_TTL_SECONDS = 24 * 3600;

// Pushes an entry only the first time its id is seen, so a retried activity never duplicates it.
const PUSH_ONCE = `
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[2])
end
return 1`;

// Entries are checked only as far as the mirror reads them: an id to push once by, and JSON to push.
const MirrorRequestSchema = z.object({
  url: z.string().min(1),
  runId: z.string().min(1).max(128),
  entries: z.array(z.looseObject({ id: z.string().min(1).max(200) })),
  /** The run ended: set the TTL. */
  final: z.boolean(),
});
/** A board entry as mirrored; an entry too large for one batch goes as a stub with its id and type. */
export type MirroredEntry = Pick<BoardEntry, 'id' | 'type' | 'author' | 'turn' | 'createdAt'> & { body: object };
export type MirrorRequest = Omit<z.infer<typeof MirrorRequestSchema>, 'entries'> & { entries: MirroredEntry[] };

export function mirrorKey(runId: string): string {
  return `scratchpad:${runId}`;
}

// One attempt fails fast when Redis is down or silent; Temporal retries it, and the supervisor gives up after a few.
const ATTEMPT_OPTIONS = {
  lazyConnect: true,
  connectTimeout: 5000,
  commandTimeout: 5000,
  maxRetriesPerRequest: 0,
  retryStrategy: () => null,
} as const;

/**
 * The Redis mirror of a research board (`SCRATCHPAD_BOARD`): every accepted entry `RPUSH`ed to `scratchpad:{runId}`,
 * idempotent by entry id; a TTL once the run ends. Temporal stays the authority; readers that do not speak it read
 * this. A connection per call: the supervisor mirrors one batch at a time, and nothing is left open in the worker.
 */
export async function mirrorEntries(rawRequest: MirrorRequest): Promise<{ pushed: number }> {
  const request = parseWorkflowInput(MirrorRequestSchema, rawRequest, ResearchError.BadInput, 'mirror request');
  const redis = new (redisClass())(request.url, ATTEMPT_OPTIONS);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const key = mirrorKey(request.runId);
    const ids = `${key}:ids`;
    const pipeline = redis.pipeline();
    for (const entry of request.entries) pipeline.eval(PUSH_ONCE, 2, key, ids, entry.id, JSON.stringify(entry));
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
    if (request.final) {
      await redis.expire(key, MIRROR_TTL_SECONDS);
      await redis.expire(ids, MIRROR_TTL_SECONDS);
    }
    return { pushed: request.entries.length };
  } finally {
    redis.disconnect();
  }
}
