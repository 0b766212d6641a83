import Redis from 'ioredis';
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
export type MirrorRequest = Omit<z.infer<typeof MirrorRequestSchema>, 'entries'> & { entries: BoardEntry[] };

export function mirrorKey(runId: string): string {
  return `scratchpad:${runId}`;
}

/**
 * The Redis mirror of a research board (`SCRATCHPAD_BOARD`): every accepted entry `RPUSH`ed to `scratchpad:{runId}`,
 * idempotent by entry id; a TTL once the run ends. Temporal stays the authority; readers that do not speak it read
 * this. A connection per call: the supervisor mirrors once per evaluation, and nothing is left open in the worker.
 */
export async function mirrorEntries(rawRequest: MirrorRequest): Promise<{ pushed: number }> {
  const request = parseWorkflowInput(MirrorRequestSchema, rawRequest, ResearchError.BadInput, 'mirror request');
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
