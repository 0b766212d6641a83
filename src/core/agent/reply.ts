import { z } from 'zod';
import { CycleOutcomeSchema } from '../cycle/input';
import { getterOf } from '../shareable';

/**
 * The `reply` signal a chat cycle sends its agent once respond has ended, before reflect (design.md, The reply
 * first): the reply and respond's outcome, for the `send` that waits on that cycle.
 */
export const ReplyArgsSchema = getterOf(
  z.strictObject({ cycleId: z.string().min(1).max(1000), reply: z.string(), outcome: CycleOutcomeSchema() }),
);
export type ReplyArgs = z.infer<ReturnType<typeof ReplyArgsSchema>>;
