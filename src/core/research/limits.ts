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
} as const;

/**
 * Most facts (entities × fields) a planned run may have. Each fact costs at least one worker, so a model that
 * names hundreds of entities must not turn one question into hundreds of child workflows.
 */
export const MAX_PLANNED_FACTS = 64;

/** Tools a research worker is offered; `board_write` ends its investigation. */
export const WORKER_TOOLS = ['web_search', 'web_fetch', 'scratchpad_read', 'board_write'] as const;
