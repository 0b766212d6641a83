import { z } from 'zod';
import { builtOnFirstCall } from '../shareable';
import { READ_DEFAULT_CHARS, READ_MAX_BYTES, READ_MAX_CHARS } from './observation';

/**
 * Argument schemas of the built-in tools (features keep their workflow-side tools' schemas in their own folders:
 * core/scratchpad/tools.ts, core/agent/subagent-tool.ts, core/research/tools.ts, core/staged/tools.ts). Each is built
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
});

/** A built-in tool: the `runTool` activity runs it. */
export type BuiltinToolName = keyof typeof TOOL_ARGS;

export const TOOL_DESCRIPTIONS: Record<BuiltinToolName, string> = {
  echo: 'Echo a message back. Useful to check that tools work.',
  shell: 'Run one allow-listed command in the sandbox directory, with a timeout. Returns exit code, stdout and stderr.',
  fs_read: 'Read a file inside the sandbox.',
  fs_write: 'Write a file inside the sandbox, creating directories as needed.',
  web_fetch: 'Fetch a URL from an allowed host; the body is capped in size.',
  web_search: 'Search the web; returns result URLs with titles and snippets.',
  scratchpad_read:
    'Read a large observation saved in the scratchpad store (an observation with a scratchpad_id shows only its start ' +
    'and end). Modes: full (entries up to twice the offload threshold), head / tail (first / last n characters), range (characters start to ' +
    'end, end exclusive), lines (line_start to line_end), grep (lines matching pattern, with context, numbered "N:" ' +
    'for matches and "N-" for context). Characters are Unicode characters, never split. Binary entries read as ' +
    `base64 slices of at most ${READ_MAX_BYTES} bytes (full, head, tail, range; positions count bytes). Call it as ` +
    'often as needed with different modes. To pass the full content of step N to another tool, write ' +
    '{{stepN.content}} (or any top-level field: {{stepN.path}}) in its arguments.',
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
