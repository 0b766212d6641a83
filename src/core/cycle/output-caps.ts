// Plain constants, with no schema library: the command line's option parsers load this at start-up.

/** Highest output cap a setting may name: above any model's output limit today. */
export const MAX_OUTPUT_TOKENS = 128_000;
/** Lowest: below it not even a short update fits. */
export const MIN_OUTPUT_TOKENS = 16;

/**
 * Output caps by phase when an agent sets none: a chat reply, a memory update (a few short sections), and a task
 * iteration (which may carry a whole file to write).
 */
export const DEFAULT_OUTPUT_CAPS = { respond: 1024, reflect: 1024, task: 2048 } as const;
export type OutputPhase = keyof typeof DEFAULT_OUTPUT_CAPS;
/** Most output tokens per model call, by phase; a phase left out takes its default. */
export type OutputCaps = Partial<Record<OutputPhase, number>>;
