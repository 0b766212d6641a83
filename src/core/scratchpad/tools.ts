import { z } from 'zod';
import { UPDATE_KEYS } from './scratchpad';
import { builtOnFirstCall } from '../shareable';

const updateValue = () =>
  z.union([z.string(), z.null(), z.array(z.union([z.string(), z.object({ task: z.string(), summary: z.string() })]))]);

/** Argument schemas of the scratchpad's own verbs, `update_scratchpad` and `done`; built on first call (core/shareable.ts). */
export const SCRATCHPAD_TOOL_ARGS = builtOnFirstCall({
  update_scratchpad: () =>
    z
      .object(
        Object.fromEntries(UPDATE_KEYS.map((key) => [key, updateValue().optional()])) as Record<
          string,
          z.ZodOptional<ReturnType<typeof updateValue>>
        >,
      )
      .strict(),
  done: () => z.object({ summary: z.string().describe('What was accomplished') }),
});

/** What the model is told each of them does. */
export const SCRATCHPAD_TOOL_DESCRIPTIONS: Record<keyof typeof SCRATCHPAD_TOOL_ARGS, string> = {
  update_scratchpad:
    'Update your scratchpad. Pass only keys that change. A value replaces the key; prefix "APPEND: " to add a line; "CLEAR" empties it. ' +
    'pending_actions and goals take a list (replaced); completed_tasks takes a list (appended). Section keys: identity_purpose, identity_user, ' +
    'identity_boundaries, understanding_known, understanding_believed, understanding_unknown, trajectory_now, trajectory_path, trajectory_later, ' +
    'workspace, self_confidence (HIGH|MEDIUM|LOW - why), self_attention, self_flags.',
  done: 'Finish the current task with a summary; the next pending action becomes the current task.',
};
