import { z } from 'zod';
import { BOARD_LIMITS, MAX_PLANNED_FACTS, MAX_QUOTE_CHARS } from './limits';
import { builtOnFirstCall } from '../shareable';

/** Argument schemas of a research run's tools: a worker's `board_write` and the supervisor's `plan_research`; built on first call (core/shareable.ts). */
export const RESEARCH_TOOL_ARGS = builtOnFirstCall({
  board_write: () =>
    z.object({
      status: z.enum(['VERIFIED', 'UNVERIFIED', 'FAILED_URL']).describe('What you found'),
      value: z.string().max(200).optional().describe('VERIFIED / UNVERIFIED: the value, as written on the page'),
      source_url: z.string().max(2048).optional().describe('VERIFIED: the URL you fetched it from'),
      observation_id: z.string().max(16).optional().describe('VERIFIED: scratchpad_id of that web_fetch observation'),
      step: z.number().int().nonnegative().optional().describe('VERIFIED: or the step number of that web_fetch'),
      quote: z
        .string()
        .max(4 * MAX_QUOTE_CHARS)
        .optional()
        .describe(
          `VERIFIED: the words of that page that state the value, copied verbatim (at most ${MAX_QUOTE_CHARS} ` +
            'characters): they must name the field and the entity (unless the page is about it) and hold the value',
        ),
      url: z.string().max(2048).optional().describe('FAILED_URL: the URL that failed'),
      reason: z.string().max(2000).optional().describe('UNVERIFIED / FAILED_URL: why'),
    }),
  plan_research: () =>
    z.object({
      goal: z.string().max(BOARD_LIMITS.text).describe('The goal of the run in one sentence'),
      entities: z
        .array(z.string().max(BOARD_LIMITS.name))
        .min(1)
        .max(BOARD_LIMITS.list)
        .describe('What the question is about, e.g. companies; each a short name'),
      fields: z
        .array(z.string().max(BOARD_LIMITS.name))
        .min(1)
        .max(BOARD_LIMITS.list)
        .describe(`What to find for every entity, e.g. revenue; at most ${MAX_PLANNED_FACTS} entities × fields in all`),
      aliases: z
        .record(z.string().max(BOARD_LIMITS.name), z.array(z.string().max(BOARD_LIMITS.name)).max(BOARD_LIMITS.aliases))
        .optional()
        .describe('Optional: other names pages give a field, by field, e.g. {"revenue": ["turnover", "sales"]}'),
    }),
});

/** What the model is told each of them does. */
export const RESEARCH_TOOL_DESCRIPTIONS: Record<keyof typeof RESEARCH_TOOL_ARGS, string> = {
  board_write:
    'Record the result of your research fact on the board and finish: VERIFIED (value, source_url, the ' +
    'observation_id or step of your web_fetch of it, and a verbatim quote of that page that states the value), ' +
    'UNVERIFIED (reason) or FAILED_URL (url, reason: only for a URL your own web_fetch saw fail).',
  plan_research:
    'Record the plan of a research run: its goal, entities and fields. Each entity × field is one fact a worker ' +
    'verifies on a web page.',
};
