import { z } from 'zod';
import { UPDATE_KEYS } from './scratchpad';

const updateValue = z.union([
  z.string(),
  z.null(),
  z.array(z.union([z.string(), z.object({ task: z.string(), summary: z.string() })])),
]);

/** Argument schemas of every tool the model can be offered; provider tool definitions derive from these. */
export const TOOL_ARGS = {
  echo: z.object({ message: z.string().describe('Text to echo back') }),
  shell: z.object({
    command: z.string().describe('Command line; the program must be on the allow-list'),
    timeout_ms: z.number().int().positive().optional().describe('Kill the command after this many milliseconds'),
  }),
  fs_read: z.object({
    path: z.string().describe('Path relative to the sandbox root'),
    encoding: z.enum(['utf-8', 'binary']).optional().describe('utf-8 (default) or binary (base64 content)'),
  }),
  fs_write: z.object({
    path: z.string().describe('Path relative to the sandbox root'),
    content: z.string().describe('Text to write; replaces the file'),
  }),
  web_fetch: z.object({
    url: z.string().describe('http(s) URL on an allowed host'),
    max_bytes: z.number().int().positive().optional().describe('Stop reading after this many bytes'),
  }),
  update_scratchpad: z
    .object(Object.fromEntries(UPDATE_KEYS.map((key) => [key, updateValue.optional()])) as Record<string, z.ZodOptional<typeof updateValue>>)
    .strict(),
  done: z.object({ summary: z.string().describe('What was accomplished') }),
} as const;

export type ToolName = keyof typeof TOOL_ARGS;

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  echo: 'Echo a message back. Useful to check that tools work.',
  shell: 'Run one allow-listed command in the sandbox directory, with a timeout. Returns exit code, stdout and stderr.',
  fs_read: 'Read a file inside the sandbox.',
  fs_write: 'Write a file inside the sandbox, creating directories as needed.',
  web_fetch: 'Fetch a URL from an allowed host; the body is capped in size.',
  update_scratchpad:
    'Update your scratchpad. Pass only keys that change. A value replaces the key; prefix "APPEND: " to add a line; "CLEAR" empties it. ' +
    'pending_actions and goals take a list (replaced); completed_tasks takes a list (appended). Section keys: identity_purpose, identity_user, ' +
    'identity_boundaries, understanding_known, understanding_believed, understanding_unknown, trajectory_now, trajectory_path, trajectory_later, ' +
    'workspace, self_confidence (HIGH|MEDIUM|LOW - why), self_attention, self_flags.',
  done: 'Finish the current task with a summary; the next pending action becomes the current task.',
};

/** Tools executed by the `runTool` activity (everything but the scratchpad's own verbs). */
export const ACTIVITY_TOOLS = ['echo', 'shell', 'fs_read', 'fs_write', 'web_fetch'] as const;
export type ActivityToolName = (typeof ACTIVITY_TOOLS)[number];

export const CYCLE_TOOLS: readonly ToolName[] = [...ACTIVITY_TOOLS, 'update_scratchpad', 'done'];

export function isActivityTool(name: string): name is ActivityToolName {
  return (ACTIVITY_TOOLS as readonly string[]).includes(name);
}

/** JSON Schema for a tool's arguments, for providers with native tool use. */
export function toolInputSchema(name: ToolName): Record<string, unknown> {
  const schema = z.toJSONSchema(TOOL_ARGS[name]) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
