import { z } from 'zod';
import { UPDATE_KEYS, type UpdateKey } from './scratchpad';
import { builtOnFirstCall } from '../shareable';

/**
 * Each key's value as `validateUpdate` (update.ts) accepts it: the model is told no looser a type than is checked, and a
 * native tool definition stays short (one union for every key took 4,798 characters, over 1,200 tokens, a request).
 */
function updateValue(key: UpdateKey) {
  if (key === 'current_task') return z.string().nullable();
  if (key === 'goals' || key === 'pending_actions') return z.union([z.string(), z.array(z.string())]);
  if (key === 'completed_tasks') {
    return z.union([z.string(), z.array(z.union([z.string(), z.object({ task: z.string(), summary: z.string() })]))]);
  }
  return z.string();
}

/** Argument schemas of the scratchpad's own verbs, `update_scratchpad` and `done`; built on first call (core/shareable.ts). */
export const SCRATCHPAD_TOOL_ARGS = builtOnFirstCall({
  update_scratchpad: () =>
    z.object(Object.fromEntries(UPDATE_KEYS.map((key) => [key, updateValue(key).optional()]))).strict(),
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
