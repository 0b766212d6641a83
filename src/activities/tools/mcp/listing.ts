import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { headCodePoints } from '../../../core/text';
import { mcpApproval } from '../../../core/tools/approval-policy';
import type { McpServerConfig } from './config';
import { toolNamesOf } from './names';
import type { McpTool } from './servers';

// The server is untrusted: what it lists is capped before it reaches a model's prompt.
const MAX_DESCRIPTION_CHARS = 2000;
const MAX_SCHEMA_BYTES = 64 * 1024;
const MAX_TOOLS = 1000;
const MAX_LIST_PAGES = 100;

/** A server's tools as offered, by offered name too. */
export interface Catalogue {
  tools: McpTool[];
  byName: Map<string, McpTool>;
}

/** The server's tools, page after page, up to the caps; none for a server without the tools capability. */
export async function listTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const listed: Tool[] = [];
  if (client.getServerCapabilities()?.tools !== undefined) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES && listed.length < MAX_TOOLS; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
      listed.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
  }
  return listed.slice(0, MAX_TOOLS);
}

/** The listed tools as the worker offers them: named `SERVER__TOOL`, capped, each once. */
export function catalogueOf(config: McpServerConfig, listed: Tool[], log: (message: string) => void): Catalogue {
  const callable = listed.filter((tool) => {
    // Such a tool answers only through the SDK's experimental task API.
    const required = tool.execution?.taskSupport === 'required';
    if (required) log(`skipping tool ${JSON.stringify(tool.name)}: it runs only as a task`);
    return !required;
  });
  const names = toolNamesOf(
    config.name,
    callable.map((tool) => tool.name),
  );
  const { timeoutMs, retry, approve } = config.policy;
  const policy = { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(retry !== undefined ? { retry } : {}) };
  const seen = new Set<string>();
  const tools: McpTool[] = [];
  for (const tool of callable) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    tools.push({
      name: names.get(tool.name)!,
      server: config.name,
      tool: tool.name,
      description: headCodePoints(
        typeof tool.description === 'string' ? tool.description : (tool.title ?? ''),
        MAX_DESCRIPTION_CHARS,
      ),
      inputSchema: safeSchema(tool.inputSchema),
      // `"approve"` names the server's own tool names, as its config's author sees them.
      policy: { ...policy, approval: mcpApproval(tool.name, approve) },
    });
  }
  return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])) };
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema as plain JSON, or `{type: 'object'}` for one that is not an object or is too large to offer. */
function safeSchema(schema: unknown): Record<string, unknown> {
  if (!isJsonObject(schema)) return { type: 'object' };
  let json: string;
  try {
    json = JSON.stringify(schema);
  } catch {
    return { type: 'object' };
  }
  if (Buffer.byteLength(json, 'utf-8') > MAX_SCHEMA_BYTES) return { type: 'object' };
  return JSON.parse(json) as Record<string, unknown>;
}
