/*
 * Plain constants of research runs, apart from their zod schemas: tool definitions and every cycle import these,
 * and every workflow execution evaluates its modules afresh, so a cycle must not build the board's schemas to read
 * a number (bench/throughput-tasks.ts).
 */

/** Caps on every board field: entries come from models and users, and the board lives in workflow history. */
export const BOARD_LIMITS = {
  text: 2000,
  name: 200,
  url: 2048,
  list: 64,
  answer: 20_000,
  query: 400,
  aliases: 8,
} as const;

/**
 * Caps on what users' directives can grow. Anyone who may publish to the board's Redis can send them, so each has a
 * bound: the Redis bridge and the `directive` signal apply the same text cap and rate.
 */
export const DIRECTIVE_LIMITS = {
  /** Longest directive, in characters: a longer one is refused whole, never cut. */
  text: BOARD_LIMITS.text,
  /** USER_DIRECTIVE entries one run holds; later directives are dropped with a note. */
  perRun: 200,
  /** Directives a run accepts per minute of workflow time, and the bridge forwards per minute and run. */
  perMinute: 10,
  /** Directives held while the supervisor plans its first STRATEGY. */
  held: 10,
  /** Longest message id a publisher or the bridge may give. */
  id: 128,
  /** Message ids a run remembers to drop a second copy of the same message. */
  rememberedIds: 256,
} as const;

/** Most notes a run keeps for the user (dropped directives, the mirror); each repeats as a count, not a new line. */
export const MAX_RUN_NOTES = 20;

/**
 * Most tokens, all models and fields together, one worker may report with the write that ends its investigation:
 * far above any real investigation (50 turns of a million-token context), far below a forged 10^15.
 */
export const MAX_WORKER_REPORT_TOKENS = 1e9;

/**
 * Most facts (entities × fields) a planned run may have. Each fact costs at least one worker, so a model that
 * names hundreds of entities must not turn one question into hundreds of child workflows.
 */
export const MAX_PLANNED_FACTS = 64;

/** Longest quote a VERIFIED claim may carry: the sentence or table row that states the value, not a page. */
export const MAX_QUOTE_CHARS = 300;

/** Longest capability token a worker may present: a uuid is 36 characters. */
export const CAPABILITY_TOKEN_CHARS = 100;

/** Tools a research worker is offered; `board_write` ends its investigation. */
export const WORKER_TOOLS = ['web_search', 'web_fetch', 'scratchpad_read', 'board_write'] as const;
