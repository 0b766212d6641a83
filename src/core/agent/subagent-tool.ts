import { z } from 'zod';
import { MAX_SECTION_CHARS } from '../scratchpad/scratchpad';
import { MAX_ITEM_CHARS } from '../scratchpad/state-caps';
import { builtOnFirstCall } from '../shareable';

/** Argument schemas of `spawn_subagent`; built on first call (core/shareable.ts). */
export const SUBAGENT_TOOL_ARGS = builtOnFirstCall({
  spawn_subagent: () =>
    z.object({
      // The task becomes the child's purpose and current task, the context its workspace: both within their caps.
      task: z.string().trim().min(1).max(MAX_ITEM_CHARS).describe('The focused task the sub-agent carries out'),
      context: z
        .string()
        .max(MAX_SECTION_CHARS)
        .optional()
        .describe('What the sub-agent needs to know; it sees nothing else of your scratchpad'),
    }),
});

/** What the model is told each of them does. */
export const SUBAGENT_TOOL_DESCRIPTIONS: Record<keyof typeof SUBAGENT_TOOL_ARGS, string> = {
  spawn_subagent:
    'Hand a focused task to a sub-agent: a fresh agent whose purpose is the task and whose workspace is the ' +
    'context you give. It works with the same tools until done; its summary comes back as the result. Limited in ' +
    'number per cycle and in nesting depth.',
};
