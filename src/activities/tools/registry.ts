import { z } from 'zod';
import { SPAWN_SUBAGENT, TOOL_ARGS, isActivityTool } from '../../core/tools/catalogue';
import type { ApprovalPolicy, CatalogueEntry, ToolDescriptor, ToolPolicy } from '../../core/tools/descriptor';
import { workerApproval } from '../../core/tools/approval-policy';
import { type Observation, SCRATCHPAD_READ } from '../../core/tools/observation';
import { errorMessage } from '../../common/error-message';
import { TOOL_DESCRIPTIONS_BY_NAME } from '../model/tool-definitions';
import type { ExternalToolLookup } from '../model/offered-tools';
import type { CodeTool, ToolContext } from './define-tool';
import { heartbeat, logger, runCodeTool } from './run-code-tool';
import { type ArgsValidator, type JsonSchema, compileSchema } from './json-schema';
import { builtinTools, sandboxCheckOnce } from './availability';
import type { ToolOptions } from './types';

/** A tool an MCP server offers, as the worker's MCP source lists it. */
export interface McpTool {
  /** `SERVER__TOOL`, as the model calls it. */
  name: string;
  server: string;
  description: string;
  inputSchema: JsonSchema;
  policy: { timeoutMs?: number; retry?: boolean; approval?: ApprovalPolicy };
}

/** What the registry needs of the MCP servers a worker is configured with. */
export interface McpSource {
  list(): Promise<{ tools: McpTool[]; failures: { server: string; error: string }[] }>;
  call(
    name: string,
    args: Record<string, unknown>,
    context: { signal?: AbortSignal; heartbeat?: () => void; timeoutMs?: number; idempotencyKey?: string },
  ): Promise<Observation>;
  close(): Promise<void>;
}

/** What a cycle gets from `listTools`: the catalogue, and why tools it might expect are missing. */
export interface CatalogueListing {
  tools: CatalogueEntry[];
  /** One line per built-in that cannot run here (`web_fetch not offered: …`) and per source not listed (MCP). */
  failures: string[];
  /** The worker's selection for cycles whose input and agent name none (`ScratchpadPlugin({ defaultTools })`). */
  defaults?: string[];
  /** Built-ins left out because they cannot run here, each with its line in `failures`. */
  unavailable?: Record<string, string>;
}

/** Names no tool of the user's may take: the built-ins and the workflow-side tools of every feature. */
function reservedNames(): Set<string> {
  return new Set([...Object.keys(TOOL_DESCRIPTIONS_BY_NAME), SPAWN_SUBAGENT, SCRATCHPAD_READ]);
}

/** The fields of a tool the model is told. */
function pick({ name, description, inputSchema }: Pick<ToolDescriptor, 'name' | 'description' | 'inputSchema'>) {
  return { name, description, inputSchema };
}

interface External {
  descriptor: ToolDescriptor;
  validate: ArgsValidator;
  code?: CodeTool;
}

/**
 * Every tool a worker has: the built-ins, the user's tools from code and the tools of its MCP servers. The workflow
 * knows them only as catalogue entries (name, source, policy); descriptions and schemas go from here to the model,
 * and every call of a tool that is not built in runs through {@link ToolRegistry.run}.
 */
export class ToolRegistry {
  /** The code tools as registry entries, built once: they never change. */
  private readonly codeEntries = new Map<string, External>();
  /** Whether `shell`'s sandbox starts here, asked once per worker. */
  private readonly sandbox = sandboxCheckOnce();

  /** Throws, naming both, when a tool from code takes a built-in's name or another tool's. */
  constructor(
    codeTools: readonly CodeTool[] = [],
    private readonly mcp?: McpSource,
    /** Names and globs offered when neither a cycle nor its agent names any; absent, every tool. */
    private readonly defaultTools?: readonly string[],
    /** Names and globs of tools whose calls wait for a person on this worker (`SCRATCHPAD_APPROVE`). */
    private readonly approve?: readonly string[],
  ) {
    const reserved = reservedNames();
    for (const tool of codeTools) {
      if (reserved.has(tool.name)) {
        throw new Error(`tool ${tool.name} from code clashes with the built-in tool ${tool.name}; rename yours`);
      }
      if (this.codeEntries.has(tool.name)) {
        throw new Error(`two tools from code are named ${tool.name}; each tool needs a name of its own`);
      }
      const descriptor = { ...pick(tool), source: 'code' as const, policy: tool.policy };
      this.codeEntries.set(tool.name, { descriptor, validate: () => ({ ok: true }), code: tool });
    }
  }

  /** Whether the worker has tools beyond the built-ins, or MCP servers that may list some. */
  get hasExternal(): boolean {
    return this.codeEntries.size > 0 || this.mcp !== undefined;
  }

  private async external(): Promise<{ tools: Map<string, External>; failures: string[] }> {
    const tools = new Map(this.codeEntries);
    if (!this.mcp) return { tools, failures: [] };
    const listed = await this.mcp.list();
    // The MCP session's errors name their server already.
    const failures = listed.failures.map(({ server, error }) =>
      error.startsWith(`MCP server ${server}`) ? error : `MCP server ${server}: ${error}`,
    );
    const reserved = reservedNames();
    for (const tool of listed.tools) {
      const clash = reserved.has(tool.name)
        ? `the built-in tool ${tool.name}`
        : tools.has(tool.name)
          ? `the tool ${tool.name} from ${tools.get(tool.name)?.descriptor.source}`
          : undefined;
      if (clash) {
        failures.push(`MCP server ${tool.server}: its tool ${tool.name} clashes with ${clash}; left out`);
        continue;
      }
      tools.set(tool.name, this.mcpEntry(tool));
    }
    return { tools, failures };
  }

  // Per listed tool object: a session serves the same objects until it lists again, and every model call and tool
  // call of a cycle asks.
  private readonly mcpEntries = new WeakMap<McpTool, External>();

  private mcpEntry(tool: McpTool): External {
    let entry = this.mcpEntries.get(tool);
    if (!entry) {
      const { retry, timeoutMs, approval } = tool.policy;
      const policy: ToolPolicy = {
        retry: retry ?? true,
        offload: true,
        approval: approval ?? 'auto',
        ...(timeoutMs && { timeoutMs }),
      };
      const descriptor = { ...pick(tool), source: `mcp:${tool.server}` as const, policy };
      entry = { descriptor, validate: this.validatorFor(tool) };
      this.mcpEntries.set(tool, entry);
    }
    return entry;
  }

  private readonly validators = new Map<string, { schema: string; validate: ArgsValidator }>();

  // Compiled once per schema: a server lists the same tools again after every restart.
  private validatorFor(tool: McpTool): ArgsValidator {
    const schema = JSON.stringify(tool.inputSchema);
    const cached = this.validators.get(tool.name);
    if (cached?.schema === schema) return cached.validate;
    let validate: ArgsValidator;
    try {
      validate = compileSchema(tool.inputSchema);
    } catch (error) {
      // The server's own check still applies; ours cannot, so say so once.
      warn(`MCP tool ${tool.name}: its input schema does not compile (${errorMessage(error)}); arguments go unchecked`);
      validate = () => ({ ok: true });
    }
    this.validators.set(tool.name, { schema, validate });
    return validate;
  }

  /**
   * Every tool with its description and schema, built-ins first: what `scratchpad tools` prints. Given the worker's
   * tool options, only the built-ins that can run here; `failures` says why each other is left out.
   */
  async describe(options?: ToolOptions): Promise<Omit<CatalogueListing, 'tools'> & { tools: ToolDescriptor[] }> {
    const builtins = await builtinTools(options, this.sandbox);
    const { tools, failures: unlisted } = await this.external();
    const failures = [...builtins.failures, ...unlisted];
    const all = [...builtins.tools, ...[...tools.values()].map((tool) => tool.descriptor)].map((tool) => {
      const approval = workerApproval(tool.name, tool.policy.approval, this.approve);
      return approval === tool.policy.approval ? tool : { ...tool, policy: { ...tool.policy, approval } };
    });
    const { unavailable } = builtins;
    return { tools: all, failures, ...(this.defaultTools && { defaults: [...this.defaultTools] }), unavailable };
  }

  /** Whether `args` suit the tool's input schema: a person's edited arguments are checked before they apply. */
  async checkArgs(name: string, args: unknown): Promise<{ ok: true } | { ok: false; error: string }> {
    if (isActivityTool(name)) {
      const parsed = TOOL_ARGS[name]().safeParse(args);
      return parsed.success
        ? { ok: true }
        : { ok: false, error: `invalid arguments for ${name}:\n${z.prettifyError(parsed.error)}` };
    }
    const tool = this.hasExternal ? (await this.external()).tools.get(name) : undefined;
    if (!tool) return { ok: false, error: `${name} is not a tool of this worker` };
    const checked = tool.code ? tool.code.parse(args) : tool.validate(args);
    return checked.ok ? { ok: true } : { ok: false, error: `invalid arguments for ${name}:\n${checked.error}` };
  }

  /** The catalogue a cycle records: names, sources and policies; given the tool options, only built-ins that can run. */
  async catalogue(options?: ToolOptions): Promise<CatalogueListing> {
    const { tools, ...rest } = await this.describe(options);
    return { tools: tools.map(({ name, source, policy }) => ({ name, source, policy })), ...rest };
  }

  /** Descriptions and schemas of the tools not built in, for the model activity. */
  async lookup(): Promise<ExternalToolLookup> {
    if (!this.hasExternal) return () => undefined;
    const { tools } = await this.external();
    return (name) => {
      const tool = tools.get(name)?.descriptor;
      return tool && { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
    };
  }

  /**
   * Runs a call of a tool from code or MCP; undefined when the name is neither (a built-in). Bad arguments, a
   * tool's exception and a timeout are observations; an MCP server that fails (dies, disconnects) throws, so
   * Temporal retries the call under the tool's policy.
   */
  async run(
    name: string,
    args: Record<string, unknown>,
    context: Omit<ToolContext, 'signal' | 'log' | 'heartbeat'> & { signal?: AbortSignal },
  ): Promise<{ observation: Observation; policy: ToolPolicy } | undefined> {
    if (!this.hasExternal || isActivityTool(name)) return undefined;
    const { tools } = await this.external();
    const tool = tools.get(name);
    if (!tool) return undefined;
    const { policy } = tool.descriptor;
    return { observation: await this.runExternal(tool, args, context), policy };
  }

  private async runExternal(
    tool: External,
    args: Record<string, unknown>,
    context: Omit<ToolContext, 'signal' | 'log' | 'heartbeat'> & { signal?: AbortSignal },
  ): Promise<Observation> {
    const { name, policy } = tool.descriptor;
    if (!tool.code) {
      const checked = tool.validate(args);
      if (!checked.ok) return { ok: false, error: `invalid arguments for ${name}:\n${checked.error}` };
      return this.mcp!.call(name, args, { ...context, heartbeat, timeoutMs: policy.timeoutMs });
    }
    return runCodeTool(tool.code, args, context);
  }

  async close(): Promise<void> {
    await this.mcp?.close();
  }
}

function warn(message: string): void {
  logger().warn(message);
}
