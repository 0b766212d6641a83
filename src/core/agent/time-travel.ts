import { z } from 'zod';
import { ScratchpadSchema } from '../scratchpad/scratchpad';
import { getterOf } from '../shareable';

/** Rewinds an agent remembers, newest last; they ride every continue-as-new and answer the `status` query. */
export const KEPT_REWINDS = 20;

/** Where a forked agent's memory came from: the agent and the cycle whose after-state it started with. */
export const OriginSchema = getterOf(
  z.strictObject({ agent: z.string().min(1).max(128), cycle: z.number().int().positive() }),
);
export type Origin = z.infer<ReturnType<typeof OriginSchema>>;

/** Who rewound the agent (a user and host, or a program's name), as the client says. */
const RewoundBySchema = z.string().trim().min(1).max(200);

/** The `rewind` update: adopt the after-state of the agent's own cycle `to`, read from its history by the client. */
export const RewindArgsSchema = getterOf(
  z.strictObject({ to: z.number().int().positive(), state: ScratchpadSchema(), by: RewoundBySchema }),
);
export type RewindArgs = z.input<ReturnType<typeof RewindArgsSchema>>;

/** One rewind as the agent records it: to which cycle, when (workflow time) and by whom. */
export const RewindRecordSchema = getterOf(
  z.strictObject({ to: z.number().int().positive(), at: z.string(), by: RewoundBySchema }),
);
export type RewindRecord = z.infer<ReturnType<typeof RewindRecordSchema>>;

/**
 * Why the agent refuses to rewind to cycle `to` now, or null: it has cycles 1 to `cycleCount`, and a running cycle
 * would overwrite the rewound state with its own result.
 */
export function rewindRefusal(to: number, status: { cycleCount: number; running: { cycleId: string } | null }) {
  if (status.running) return `a cycle runs (${status.running.cycleId}): rewind once it has finished`;
  if (to > status.cycleCount) return `no cycle ${to}: the agent has run ${status.cycleCount} cycle(s)`;
  return null;
}
