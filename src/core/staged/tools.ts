import { z } from 'zod';
import { builtOnFirstCall } from '../shareable';

/** Argument schemas of a staged run's tools: the plan-only turn's `plan` and a stage's `write_files`; built on first call (core/shareable.ts). */
export const STAGED_TOOL_ARGS = builtOnFirstCall({
  write_files: () =>
    z.object({
      files: z
        .array(z.object({ path: z.string().describe('Path relative to the sandbox root'), content: z.string() }))
        .min(1)
        .max(10)
        .describe('Files to write, each replaced whole'),
      scratchpad: z.unknown().optional().describe('Run-local notes, e.g. {plan, done, next, notes}'),
    }),
  plan: () =>
    z.object({
      stages: z.array(z.string()).describe('The stages, in order; each a short instruction touching a few files'),
      scratchpad: z.unknown().optional().describe('Run-local notes, e.g. {plan, done, next, notes}'),
    }),
});

/** What the model is told each of them does. */
export const STAGED_TOOL_DESCRIPTIONS: Record<keyof typeof STAGED_TOOL_ARGS, string> = {
  write_files: 'Write several files inside the sandbox at once (each like fs_write).',
  plan: 'Record the plan of a staged run: its stages in order. Writes nothing.',
};
