import { z } from 'zod';
import { BOARD_LIMITS, MAX_PLANNED_FACTS } from '../research/limits';
import { builtOnFirstCall } from '../shareable';
import { READ_DEFAULT_CHARS, READ_MAX_BYTES, READ_MAX_CHARS } from './observation';
import { MAX_SECTION_CHARS, UPDATE_KEYS } from '../scratchpad/scratchpad';
import { MAX_ITEM_CHARS } from '../scratchpad/state-caps';

const updateValue = () =>
  z.union([z.string(), z.null(), z.array(z.union([z.string(), z.object({ task: z.string(), summary: z.string() })]))]);

/**
 * Argument schemas of every tool the model can be offered; provider tool definitions derive from these. Each is built
 * on its first call (`TOOL_ARGS.echo()`): most workflows use one schema or none, and a worker that does not share its
 * workflow modules (config/paths.ts) evaluates this module afresh in every execution.
 */
export const TOOL_ARGS = builtOnFirstCall({
  echo: () => z.object({ message: z.string().describe('Text to echo back') }),
  shell: () =>
    z.object({
      command: z.string().describe('Command line; the program must be on the allow-list'),
      timeout_ms: z.number().int().positive().optional().describe('Kill the command after this many milliseconds'),
    }),
  fs_read: () =>
    z.object({
      path: z.string().describe('Path relative to the sandbox root'),
      encoding: z.enum(['utf-8', 'binary']).optional().describe('utf-8 (default) or binary (base64 content)'),
    }),
  fs_write: () =>
    z.object({
      path: z.string().describe('Path relative to the sandbox root'),
      content: z.string().describe('Text to write; replaces the file'),
    }),
  web_fetch: () =>
    z.object({
      url: z.string().describe('http(s) URL on an allowed host'),
      max_bytes: z.number().int().positive().optional().describe('Stop reading after this many bytes'),
    }),
  web_search: () =>
    z.object({
      query: z.string().trim().min(1).max(500).describe('Search terms'),
      max_results: z.number().int().min(1).max(10).optional().describe('Results to return (default 5)'),
    }),
  board_write: () =>
    z.object({
      status: z.enum(['VERIFIED', 'UNVERIFIED', 'FAILED_URL']).describe('What you found'),
      value: z.string().max(200).optional().describe('VERIFIED / UNVERIFIED: the value, as written on the page'),
      source_url: z.string().max(2048).optional().describe('VERIFIED: the URL you fetched it from'),
      observation_id: z.string().max(16).optional().describe('VERIFIED: scratchpad_id of that web_fetch observation'),
      step: z.number().int().nonnegative().optional().describe('VERIFIED: or the step number of that web_fetch'),
      url: z.string().max(2048).optional().describe('FAILED_URL: the URL that failed'),
      reason: z.string().max(2000).optional().describe('UNVERIFIED / FAILED_URL: why'),
    }),
  scratchpad_read: () =>
    z.object({
      scratchpad_id: z
        .string({
          error: (issue) =>
            issue.input === undefined ? 'required: the scratchpad_id of a stored observation' : undefined,
        })
        .regex(/^[0-9a-f]{16}$/, 'expected the 16 hexadecimal characters of a scratchpad_id')
        .describe("Id from the 'scratchpad_id' field of a previous observation"),
      mode: z
        .enum(['full', 'head', 'tail', 'range', 'lines', 'grep'])
        .optional()
        .describe('What to read (default head)'),
      n: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(`head/tail: characters to read (default ${READ_DEFAULT_CHARS}, at most ${READ_MAX_CHARS})`),
      start: z.number().int().nonnegative().optional().describe('range: index of the first character, from 0'),
      end: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe(`range: index after the last character (exclusive; default start + ${READ_DEFAULT_CHARS})`),
      line_start: z.number().int().positive().optional().describe('lines: first line, from 1 (default 1)'),
      line_end: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('lines: last line, inclusive (default line_start + 99)'),
      pattern: z.string().min(1).max(1000).optional().describe('grep: regular expression (JavaScript syntax) to find'),
      ignore_case: z.boolean().optional().describe('grep: match letters of either case'),
      context: z.number().int().min(0).max(20).optional().describe('grep: lines shown around each match (default 2)'),
      max_matches: z
        .number()
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe('grep: matching lines to show at most (default 20)'),
    }),
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
  write_files: () =>
    z.object({
      files: z
        .array(z.object({ path: z.string().describe('Path relative to the sandbox root'), content: z.string() }))
        .min(1)
        .max(10)
        .describe('Files to write, each replaced whole'),
      scratchpad: z.unknown().optional().describe('Run-local notes, e.g. {plan, done, next, notes}'),
    }),
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
    }),
  plan: () =>
    z.object({
      stages: z.array(z.string()).describe('The stages, in order; each a short instruction touching a few files'),
      scratchpad: z.unknown().optional().describe('Run-local notes, e.g. {plan, done, next, notes}'),
    }),
});

export type ToolName = keyof typeof TOOL_ARGS;

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  echo: 'Echo a message back. Useful to check that tools work.',
  shell: 'Run one allow-listed command in the sandbox directory, with a timeout. Returns exit code, stdout and stderr.',
  fs_read: 'Read a file inside the sandbox.',
  fs_write: 'Write a file inside the sandbox, creating directories as needed.',
  web_fetch: 'Fetch a URL from an allowed host; the body is capped in size.',
  web_search: 'Search the web; returns result URLs with titles and snippets.',
  board_write:
    'Record the result of your research fact on the board and finish: VERIFIED (value, source_url and the ' +
    'observation_id or step of your web_fetch of it; the value must appear on that page), UNVERIFIED (reason) or ' +
    'FAILED_URL (url, reason).',
  scratchpad_read:
    'Read a large observation saved in the scratchpad store (an observation with a scratchpad_id shows only its start ' +
    'and end). Modes: full (entries up to twice the offload threshold), head / tail (first / last n characters), range (characters start to ' +
    'end, end exclusive), lines (line_start to line_end), grep (lines matching pattern, with context, numbered "N:" ' +
    'for matches and "N-" for context). Characters are Unicode characters, never split. Binary entries read as ' +
    `base64 slices of at most ${READ_MAX_BYTES} bytes (full, head, tail, range; positions count bytes). Call it as ` +
    'often as needed with different modes. To pass the full content of step N to another tool, write ' +
    '{{stepN.content}} (or any top-level field: {{stepN.path}}) in its arguments.',
  update_scratchpad:
    'Update your scratchpad. Pass only keys that change. A value replaces the key; prefix "APPEND: " to add a line; "CLEAR" empties it. ' +
    'pending_actions and goals take a list (replaced); completed_tasks takes a list (appended). Section keys: identity_purpose, identity_user, ' +
    'identity_boundaries, understanding_known, understanding_believed, understanding_unknown, trajectory_now, trajectory_path, trajectory_later, ' +
    'workspace, self_confidence (HIGH|MEDIUM|LOW - why), self_attention, self_flags.',
  done: 'Finish the current task with a summary; the next pending action becomes the current task.',
  write_files: 'Write several files inside the sandbox at once (each like fs_write).',
  spawn_subagent:
    'Hand a focused task to a sub-agent: a fresh agent whose purpose is the task and whose workspace is the ' +
    'context you give. It works with the same tools until done; its summary comes back as the result. Limited in ' +
    'number per cycle and in nesting depth.',
  plan_research:
    'Record the plan of a research run: its goal, entities and fields. Each entity × field is one fact a worker ' +
    'verifies on a web page.',
  plan: 'Record the plan of a staged run: its stages in order. Writes nothing.',
};

/** Tools executed by the `runTool` activity (everything but the scratchpad's own verbs). */
export const ACTIVITY_TOOLS = ['echo', 'shell', 'fs_read', 'fs_write', 'web_fetch', 'web_search'] as const;
export type ActivityToolName = (typeof ACTIVITY_TOOLS)[number];

/** Runs as a child `agentCycle`, never through the `runTool` activity. */
export const SPAWN_SUBAGENT = 'spawn_subagent';

/** Work tools an agent cycle offers unless its input says otherwise. */
export const CYCLE_TOOLS: readonly string[] = [...ACTIVITY_TOOLS, SPAWN_SUBAGENT];

export function isActivityTool(name: string): name is ActivityToolName {
  return (ACTIVITY_TOOLS as readonly string[]).includes(name);
}

/** JSON Schema for a tool's arguments, for providers with native tool use. */
export function toolInputSchema(name: ToolName): Record<string, unknown> {
  const schema = z.toJSONSchema(TOOL_ARGS[name]()) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
