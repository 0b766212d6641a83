import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage } from '../common/error-message';
import { type CodeTool, type ToolDefinitionInput, defineTool, isCodeTool } from '../activities/tools/define-tool';
import { type McpConfig, loadMcpConfig } from '../activities/tools/mcp/config';
import type { McpServers } from '../activities/tools/mcp/servers';
import { ToolRegistry } from '../activities/tools/registry';
import { ToolPatternsSchema } from '../core/tools/select';

/** A tool as a worker is given it: made by `defineTool`, or the object `defineTool` takes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool has its own argument type
export type ToolInput = CodeTool | ToolDefinitionInput<any>;

/** Where a worker's tools come from, besides the built-ins. */
export interface ToolSources {
  tools?: readonly ToolInput[];
  /** A module (CommonJS or ESM) whose default export is an array of tools: `--tools`, `SCRATCHPAD_TOOLS`. */
  toolsModule?: string;
  /** MCP servers: a config file in the `mcpServers` shape (`--mcp-config`, `SCRATCHPAD_MCP_CONFIG`), or its content. */
  mcpConfig?: string | McpConfig;
  /** Where MCP servers' lifecycle is reported (started, exited, restarted). */
  log?: (message: string) => void;
  /** Names and globs offered to agents that name none; absent, every tool the worker has. */
  defaultTools?: readonly string[];
  /**
   * Names and globs of tools whose calls wait for a person's decision on this worker (`SCRATCHPAD_APPROVE`), beside
   * what each tool's source asks. An agent may add its own, never waive these.
   */
  approve?: readonly string[];
}

function checked(tools: readonly unknown[], origin: string): CodeTool[] {
  return tools.map((tool, index) => {
    if (isCodeTool(tool)) return tool;
    try {
      return defineTool(tool as ToolInput as ToolDefinitionInput<unknown>);
    } catch (error) {
      throw new Error(`${origin}, tool ${index + 1}: ${errorMessage(error)}`);
    }
  });
}

// Through a function so TypeScript's CommonJS output keeps a real `import()`, which loads ESM too.
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/** CommonJS (and ESM where `require` takes it) by `require`; ESM it refuses by `import()`. */
async function load(file: string): Promise<unknown> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a user's module, CommonJS or ESM
    return require(file) as unknown;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
    return importModule(pathToFileURL(file).href);
  }
}

/**
 * Why a module did not load, in one line: Node appends the require stack (this package's own files included) to a
 * missing module's message, and keeps where a syntax error is only in the stack's first line (`FILE:LINE`).
 */
function loadFailure(error: unknown): string {
  const message = errorMessage(error);
  const { code, name, stack } = (typeof error === 'object' && error !== null ? error : {}) as NodeJS.ErrnoException;
  if (code === 'MODULE_NOT_FOUND') return message.split('\n')[0] ?? message;
  const where = name === 'SyntaxError' ? /^(.+):(\d+)\n/.exec(stack ?? '') : null;
  return where ? `syntax error in ${where[1]} line ${where[2]}: ${message}` : message;
}

/** The tools a module exports as its default export (an array); ESM or CommonJS. */
export async function loadToolModule(file: string): Promise<CodeTool[]> {
  const resolved = path.resolve(file);
  let loaded: unknown;
  try {
    loaded = await load(resolved);
  } catch (error) {
    throw new Error(`cannot load the tools module ${resolved}: ${loadFailure(error)}`);
  }
  let exported = (loaded as { default?: unknown }).default ?? loaded;
  // A CommonJS module that sets `exports.default` arrives wrapped once more.
  if (!Array.isArray(exported)) exported = (exported as { default?: unknown })?.default ?? exported;
  if (!Array.isArray(exported)) {
    throw new Error(`the tools module ${resolved} must export an array of tools as its default export`);
  }
  return checked(exported, `the tools module ${resolved}`);
}

/**
 * The worker's tool registry: its tools from code and from a module, and its MCP servers. Throws at worker start,
 * naming both, when two tools share a name or one takes a built-in's.
 */
export async function toolRegistryFor(sources: ToolSources): Promise<ToolRegistry> {
  const tools = checked(sources.tools ?? [], 'tools');
  if (sources.toolsModule) tools.push(...(await loadToolModule(sources.toolsModule)));
  const approve = checkedPatterns(sources.approve, 'approve (SCRATCHPAD_APPROVE)');
  return new ToolRegistry(tools, mcpServersFor(sources), checkedPatterns(sources.defaultTools), approve);
}

/** The same, for a plugin built synchronously: no module, only tools given as values. */
export function toolRegistryOf(sources: Omit<ToolSources, 'toolsModule'>): ToolRegistry {
  return new ToolRegistry(
    checked(sources.tools ?? [], 'tools'),
    mcpServersFor(sources),
    checkedPatterns(sources.defaultTools),
    checkedPatterns(sources.approve, 'approve (SCRATCHPAD_APPROVE)'),
  );
}

function checkedPatterns(
  patterns: readonly string[] | undefined,
  what = 'defaultTools',
): readonly string[] | undefined {
  if (patterns === undefined) return undefined;
  const parsed = ToolPatternsSchema().safeParse(patterns);
  if (!parsed.success) throw new Error(`${what}: expected tool names and globs (A-Za-z0-9_- with * and ?)`);
  return parsed.data;
}

function mcpServersFor(sources: ToolSources): McpServers | undefined {
  if (sources.mcpConfig === undefined) return undefined;
  const config = typeof sources.mcpConfig === 'string' ? loadMcpConfig(sources.mcpConfig) : sources.mcpConfig;
  for (const warning of config.warnings ?? []) sources.log?.(warning);
  if (config.servers.length === 0) return undefined;
  // The MCP SDK is loaded only now, by a worker with servers to start: about 80 ms of CPU the others skip.
  type Module = typeof import('../activities/tools/mcp/servers');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use, see above
  const { McpServers: Servers } = require('../activities/tools/mcp/servers') as Module;
  return new Servers(config, { log: sources.log });
}
