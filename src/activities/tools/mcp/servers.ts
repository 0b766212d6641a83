import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Observation } from '../../../core/tools/observation';
import { errorMessage } from '../../../common/error-message';
import type { McpConfig, McpServerPolicy } from './config';
import { oneLine } from './errors';
import { ServerSession } from './session';

/** A tool of an MCP server as the worker offers it. */
export interface McpTool {
  /** `SERVER__TOOL`, as the model calls it (see `toolNamesOf`). */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  policy: { timeoutMs?: number; retry?: boolean; approval?: 'ask' | 'auto' };
}

/** How `McpServers` runs its servers; every field has a default. */
export interface McpServersOptions {
  /** A server unused this long is closed (its process ends); default 5 minutes. */
  idleMs?: number;
  /** A server that has not answered `initialize` within this is killed; default 30 s. */
  startTimeoutMs?: number;
  log?: (message: string) => void;
  clientInfo?: { name: string; version: string };
}

/** What `call` needs besides the arguments; `timeoutMs` overrides the server's policy. */
export interface McpCallContext {
  signal?: AbortSignal;
  heartbeat?: () => void;
  timeoutMs?: number;
  /** Sent in the call's `_meta` (core/tools/idempotency.ts): the same for every attempt of one call. */
  idempotencyKey?: string;
}

const DEFAULT_IDLE_MS = 5 * 60 * 1000;
const DEFAULT_START_TIMEOUT_MS = 30 * 1000;

let packageVersion: string | undefined;

function defaultClientInfo(): { name: string; version: string } {
  if (packageVersion === undefined) {
    packageVersion = '0.0.0';
    for (let directory = __dirname; path.dirname(directory) !== directory; directory = path.dirname(directory)) {
      const file = path.join(directory, 'package.json');
      if (!fs.existsSync(file)) continue;
      try {
        const json = JSON.parse(fs.readFileSync(file, 'utf-8')) as { version?: unknown };
        if (typeof json.version === 'string') packageVersion = json.version;
      } catch {
        // keep the placeholder
      }
      break;
    }
  }
  return { name: 'durable-scratchpad', version: packageVersion };
}

/**
 * The MCP servers of a config as tool sources. Each stdio server starts on first use, is closed after `idleMs`
 * unused and restarted on the next use after it died; an HTTP server is connected to lazily and reconnected after a
 * failure. Tool lists are cached per server.
 */
export class McpServers {
  private readonly sessions: Map<string, ServerSession>;
  private closing?: Promise<void>;

  constructor(config: McpConfig, options: McpServersOptions = {}) {
    const settings = {
      idleMs: options.idleMs ?? DEFAULT_IDLE_MS,
      startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      log: options.log ?? (() => {}),
      clientInfo: options.clientInfo ?? defaultClientInfo(),
    };
    this.sessions = new Map(config.servers.map((server) => [server.name, new ServerSession(server, settings)]));
  }

  /** Every configured server's tools, listed in parallel; a server that cannot start or list is a failure line. */
  async list(): Promise<{ tools: McpTool[]; failures: { server: string; error: string }[] }> {
    this.assertOpen();
    const results = await Promise.allSettled([...this.sessions.values()].map((session) => session.tools()));
    const tools: McpTool[] = [];
    const failures: { server: string; error: string }[] = [];
    [...this.sessions.keys()].forEach((server, index) => {
      const result = results[index]!;
      if (result.status === 'fulfilled') tools.push(...result.value);
      else failures.push({ server, error: oneLine(errorMessage(result.reason)) });
    });
    return { tools, failures };
  }

  /**
   * Calls the tool offered as `name` (`SERVER__TOOL`). A result, even `isError`, is an observation; an unknown tool,
   * a server that cannot start, a lost connection or a timeout throws, for the activity's retry.
   */
  async call(name: string, args: Record<string, unknown>, context: McpCallContext = {}): Promise<Observation> {
    this.assertOpen();
    const server = this.serverOf(name);
    if (server === undefined) {
      throw new Error(`unknown MCP tool ${JSON.stringify(name)}: no configured server offers it`);
    }
    const session = this.sessions.get(server)!;
    const tool = await session.find(name);
    if (tool === undefined) {
      throw new Error(`unknown MCP tool ${JSON.stringify(name)}: server ${server} has no such tool`);
    }
    return session.call(tool, args, context);
  }

  /** The server a tool name belongs to, or undefined: server names hold no `__` and end in no `_`. */
  serverOf(name: string): string | undefined {
    const separator = name.indexOf('__');
    if (separator <= 0) return undefined;
    const server = name.slice(0, separator);
    return this.sessions.has(server) ? server : undefined;
  }

  /** The policy (timeout, retries, approval) of the tool offered as `name`, or undefined for no such server. */
  policyOf(name: string): McpServerPolicy | undefined {
    const server = this.serverOf(name);
    return server === undefined ? undefined : this.sessions.get(server)!.config.policy;
  }

  /** The running stdio server's process id, for logs and tests. */
  pidOf(server: string): number | undefined {
    return this.sessions.get(server)?.pid;
  }

  /** Closes every server, ending stdio processes. Safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= Promise.all([...this.sessions.values()].map((session) => session.close())).then(() => {});
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing !== undefined) throw new Error('MCP servers are closed');
  }
}
