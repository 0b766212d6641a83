import { z } from 'zod';
import { chatTurnShape, cycleInputShape } from '../cycle/input';
import { getterOf } from '../shareable';

/**
 * Input of one `agentCycle` workflow, an agent's own cycle: the base input, and the block of its kind. `task` runs
 * the task queue (design.md, The cycle); `chat` is one respond → reflect turn on `message`. A key neither knows (an
 * old `mode`, a misspelling) is refused, naming it.
 */
export const AgentCycleInputSchema = getterOf(
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('task'), ...cycleInputShape() }),
    z.strictObject({ kind: z.literal('chat'), ...cycleInputShape(), ...chatTurnShape() }),
  ]),
);
type KindedInput = z.input<ReturnType<typeof AgentCycleInputSchema>>;
/** What a starter passes: `kind` may be left out of a task cycle's input. */
export type AgentCycleInput =
  Exclude<KindedInput, { kind: 'task' }> | (Omit<Extract<KindedInput, { kind: 'task' }>, 'kind'> & { kind?: 'task' });
export type ParsedAgentCycleInput = z.output<ReturnType<typeof AgentCycleInputSchema>>;

/** A start that names no kind (the stock CLI, a hand-written input) is a task cycle. */
export function withDefaultKind(raw: unknown): unknown {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !('kind' in raw)
    ? { ...raw, kind: 'task' }
    : raw;
}
