import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { MAX_TOOL_TIMEOUT_MS } from '../../../core/tools/descriptor';
import { errorMessage } from '../../../common/error-message';

/** Longest server name: `NAME__` leaves the tool's own name room within the providers' 64 characters. */
export const MAX_SERVER_NAME_CHARS = 40;

const SERVER_NAME_PATTERN = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_SERVER_NAME_CHARS}}$`);

/** How the cycle treats a server's tools: per-call timeout, retries, and which calls wait for a person's approval. */
export interface McpServerPolicy {
  timeoutMs?: number;
  retry?: boolean;
  /** `true`: every tool asks; a list: the server's own tool names that ask. */
  approve?: boolean | string[];
}

/** A server the worker starts as a child process and speaks to over stdin and stdout. */
export interface McpStdioServer {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
  /** Only these variables (plus the SDK's minimal defaults) reach the process: never the worker's own. */
  env: Record<string, string>;
  cwd?: string;
  policy: McpServerPolicy;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServer {
  name: string;
  transport: 'http';
  url: string;
  headers: Record<string, string>;
  policy: McpServerPolicy;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

/** The enabled servers of a config file, in its order, and what was ignored in it. */
export interface McpConfig {
  servers: McpServerConfig[];
  /** One line per ignored key: other clients (VS Code, Cursor) write keys of their own. */
  warnings: string[];
}

const NoNul = z.string().refine((value) => !value.includes('\0'), 'must not contain a NUL character');

const EntrySchema = z.object({
  type: z.enum(['stdio', 'http', 'streamable-http']).optional(),
  command: NoNul.pipe(z.string().min(1)).optional(),
  args: z.array(NoNul).optional(),
  env: z
    .record(
      z.string().regex(/^[^=\0]+$/, 'a variable name must be non-empty, without "=" or NUL'),
      z.union([NoNul, z.number().transform(String), z.boolean().transform(String)]),
    )
    .optional(),
  cwd: NoNul.pipe(z.string().min(1)).optional(),
  url: z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL')
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  timeoutMs: z.number().int().positive().max(MAX_TOOL_TIMEOUT_MS).optional(),
  retry: z.boolean().optional(),
  approve: z.union([z.boolean(), z.array(z.string())]).optional(),
  disabled: z.boolean().optional(),
});

const KNOWN_KEYS = new Set(Object.keys(EntrySchema.shape));

/** A name as it appears in a message: quoted, and cut so that a huge one stays one readable line. */
function quoted(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why a server name is refused, or undefined. */
function nameProblem(name: string): string | undefined {
  if (!SERVER_NAME_PATTERN.test(name)) {
    return `use only letters, digits, "_" and "-", at most ${MAX_SERVER_NAME_CHARS} characters`;
  }
  // Tool names are NAME__TOOL: a name without "__" and not ending in "_" makes the server part of any tool name unique.
  if (name.includes('__') || name.endsWith('_')) {
    return 'it must not contain "__" nor end with "_" ("__" separates the server from the tool in tool names)';
  }
  return undefined;
}

function serverConfigOf(name: string, entry: z.output<typeof EntrySchema>, baseDirectory?: string): McpServerConfig {
  const policy: McpServerPolicy = {
    ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {}),
    ...(entry.retry !== undefined ? { retry: entry.retry } : {}),
    ...(entry.approve !== undefined ? { approve: entry.approve } : {}),
  };
  if (entry.url !== undefined) return { name, transport: 'http', url: entry.url, headers: entry.headers ?? {}, policy };
  const cwd =
    entry.cwd !== undefined && baseDirectory !== undefined ? path.resolve(baseDirectory, entry.cwd) : entry.cwd;
  return {
    name,
    transport: 'stdio',
    command: entry.command!,
    args: entry.args ?? [],
    env: entry.env ?? {},
    ...(cwd !== undefined ? { cwd } : {}),
    policy,
  };
}

/** Problems of an entry that its schema cannot say: the transport and the keys it needs. */
function shapeProblems(entry: z.output<typeof EntrySchema>): string[] {
  const { type, command, url } = entry;
  if (command !== undefined && url !== undefined) return ['"command" and "url": give one, not both'];
  if (command === undefined && url === undefined) {
    return ['needs "command" (a stdio server) or "url" (a Streamable HTTP server)'];
  }
  if (type === 'stdio' && command === undefined) return ['"type" is "stdio" but there is no "command"'];
  if ((type === 'http' || type === 'streamable-http') && url === undefined) {
    return [`"type" is "${type}" but there is no "url"`];
  }
  const problems: string[] = [];
  if (url === undefined && entry.headers !== undefined) problems.push('"headers": only for a server with a "url"');
  if (command === undefined && (entry.args ?? entry.env ?? entry.cwd) !== undefined) {
    problems.push('"args", "env" and "cwd": only for a server with a "command"');
  }
  return problems;
}

function parse(json: unknown, origin: string, baseDirectory?: string): McpConfig {
  if (!isRecord(json)) throw new Error(`${origin}: the MCP config must be a JSON object with "mcpServers"`);
  // VS Code's own file calls the same object "servers".
  const servers = json.mcpServers ?? json.servers;
  if (!isRecord(servers)) throw new Error(`${origin}: "mcpServers" must be an object of servers by name`);
  const problems: string[] = [];
  const warnings: string[] = [];
  const result: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const where = `${origin}: server ${quoted(name)}`;
    if (isRecord(entry) && entry.disabled === true) continue;
    const badName = nameProblem(name);
    if (badName !== undefined) {
      problems.push(`${where}: bad server name: ${badName}`);
      continue;
    }
    if (!isRecord(entry)) {
      problems.push(`${where}: must be an object`);
      continue;
    }
    if (entry.type === 'sse') {
      problems.push(
        `${where}: "type": "sse" is not supported: only stdio and Streamable HTTP servers are ("type": "http", its "url")`,
      );
      continue;
    }
    const parsed = EntrySchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.length > 0 ? `"${issue.path.map(String).join('.')}"` : 'entry';
        problems.push(`${where}: ${field}: ${issue.message}`);
      }
      continue;
    }
    const shape = shapeProblems(parsed.data);
    if (shape.length > 0) {
      problems.push(...shape.map((problem) => `${where}: ${problem}`));
      continue;
    }
    const unknown = Object.keys(entry).filter((key) => !KNOWN_KEYS.has(key));
    if (unknown.length > 0) {
      warnings.push(`${where}: ignoring unknown ${unknown.map((key) => quoted(key)).join(', ')}`);
    }
    result.push(serverConfigOf(name, parsed.data, baseDirectory));
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return { servers: result, warnings };
}

/**
 * Validates a config in the `mcpServers` shape Claude Desktop, VS Code and Cursor write. `origin` names it in
 * messages. Throws an Error with one line per problem; disabled servers are left out.
 */
export function parseMcpConfig(json: unknown, origin: string): McpConfig {
  return parse(json, origin);
}

/** Reads and validates an MCP config file; a relative `cwd` in it is relative to the file's folder. */
export function loadMcpConfig(file: string): McpConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf-8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Error(
      code === 'ENOENT' ? `${file}: no such MCP config file` : `${file}: cannot read: ${errorMessage(error)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${errorMessage(error)}`);
  }
  return parse(json, file, path.dirname(path.resolve(file)));
}
