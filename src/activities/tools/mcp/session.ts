import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Observation } from '../../../core/tools/observation';
import { IDEMPOTENCY_META_KEY } from '../../../core/tools/idempotency';
import type { McpServerConfig } from './config';
import { type Connection, closeConnection, openConnection } from './connection';
import { explain, isExchangeFailure, isMalformed, oneLine, seconds } from './errors';
import { type Catalogue, catalogueOf, listTools } from './listing';
import { observationOf } from './results';
import type { McpCallContext, McpServersOptions, McpTool } from './servers';

/** The SDK's own default for a request. */
const DEFAULT_CALL_TIMEOUT_MS = 60 * 1000;
const PING_TIMEOUT_MS = 5000;

/** One configured server: its connection (started on first use), its tool list, its idle timer. */
export class ServerSession {
  private current?: Connection;
  private connecting?: Promise<Connection>;
  private catalogue?: Catalogue;
  /** Whether the catalogue predates the running connection (kept over an idle close). */
  private catalogueIsOld = false;
  private listing?: Promise<Catalogue>;
  /** Bumped whenever the tool list may have changed, so a listing that started before is not cached. */
  private version = 0;
  private active = 0;
  private idleTimer?: NodeJS.Timeout;
  private shut = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: Required<McpServersOptions>,
  ) {}

  get name(): string {
    return this.config.name;
  }

  get pid(): number | undefined {
    return this.current?.pid;
  }

  private log(message: string): void {
    this.options.log(`MCP server ${this.name}: ${message}`);
  }

  /** The server's tools: cached; listed again after `tools/list_changed` or once the server restarted. */
  async tools(): Promise<McpTool[]> {
    return (await this.ensureCatalogue(false)).tools;
  }

  /** The tool offered as `name`, listing the server when its list does not have it. */
  async find(name: string): Promise<McpTool | undefined> {
    const known = this.catalogue?.byName.get(name);
    if (known !== undefined) return known;
    return (await this.ensureCatalogue(true)).byName.get(name);
  }

  private ensureCatalogue(fresh: boolean): Promise<Catalogue> {
    const cached = this.catalogue;
    // A list kept over an idle close serves until the server runs again: listing never starts a process for nothing.
    if (cached !== undefined && !fresh && (!this.catalogueIsOld || this.current === undefined)) {
      return Promise.resolve(cached);
    }
    if (this.listing === undefined) {
      const listing = this.use((connection) => this.list(connection));
      this.listing = listing;
      const clear = (): void => {
        if (this.listing === listing) this.listing = undefined;
      };
      listing.then(clear, clear);
    }
    return this.listing;
  }

  private async list(connection: Connection): Promise<Catalogue> {
    const version = this.version;
    let listed: Tool[];
    try {
      listed = await listTools(connection.client, this.options.startTimeoutMs);
    } catch (error) {
      throw await this.failure(connection, 'listing its tools', error, this.options.startTimeoutMs);
    }
    const catalogue = catalogueOf(this.config, listed, (message) => this.log(message));
    if (version === this.version && this.current === connection) {
      this.catalogue = catalogue;
      this.catalogueIsOld = false;
    }
    return catalogue;
  }

  /** Calls one tool: a result (even `isError`) is an observation; a failed exchange throws. */
  async call(tool: McpTool, args: Record<string, unknown>, context: McpCallContext): Promise<Observation> {
    return this.use(async (connection) => {
      const timeoutMs = context.timeoutMs ?? this.config.policy.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
      let result: Awaited<ReturnType<Client['callTool']>>;
      try {
        const meta = context.idempotencyKey ? { _meta: { [IDEMPOTENCY_META_KEY]: context.idempotencyKey } } : {};
        result = await connection.client.callTool({ name: tool.tool, arguments: args, ...meta }, undefined, {
          ...(context.signal !== undefined ? { signal: context.signal } : {}),
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: () => context.heartbeat?.(),
        });
      } catch (error) {
        if (context.signal?.aborted) throw error;
        // The server answered with a JSON-RPC error, or its result failed the tool's output schema: the model
        // can act on that, and asking again would get the same answer.
        if (error instanceof McpError && !isExchangeFailure(error)) {
          return { ok: false, error: `MCP server ${this.name}: ${oneLine(error.message)}` };
        }
        if (isMalformed(error)) {
          return {
            ok: false,
            error: `MCP server ${this.name} sent a malformed result: ${explain(error)}`,
          };
        }
        throw await this.failure(connection, `calling ${tool.tool}`, error, timeoutMs);
      }
      if ('toolResult' in result && !('content' in result)) return { ok: true, result: result.toolResult };
      return observationOf(result as CallToolResult);
    });
  }

  /** The error to throw for a failed exchange, after seeing to the connection so the next use starts afresh. */
  private async failure(connection: Connection, doing: string, error: unknown, timeoutMs: number): Promise<Error> {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      // A slow tool is no dead server: restart only a server that no longer answers a ping.
      void this.checkHealth(connection);
      return new Error(`MCP server ${this.name} did not answer within ${seconds(timeoutMs)} while ${doing}`);
    }
    if (connection.hasClosed || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
      await this.shutdown(connection, true);
      const stderr = connection.stderr?.text() ?? '';
      return new Error(
        `MCP server ${this.name} closed the connection while ${doing}${stderr === '' ? '' : `; its stderr: ${stderr}`}`,
      );
    }
    await this.shutdown(connection, true);
    return new Error(`MCP server ${this.name} failed while ${doing}: ${explain(error)}`);
  }

  private async checkHealth(connection: Connection): Promise<void> {
    try {
      await connection.client.ping({ timeout: Math.min(PING_TIMEOUT_MS, this.options.startTimeoutMs) });
    } catch {
      this.log('does not answer a ping after a timeout: restarting it on next use');
      await this.shutdown(connection, true);
    }
  }

  /** Runs `work` on a live connection, starting the server if needed; the idle timer runs while none is active. */
  private async use<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    this.active++;
    clearTimeout(this.idleTimer);
    try {
      return await work(await this.connect());
    } finally {
      this.active--;
      if (this.active === 0) this.scheduleIdle();
    }
  }

  private scheduleIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.current === undefined) return;
    this.idleTimer = setTimeout(() => {
      const connection = this.current;
      if (this.active > 0 || connection === undefined) return;
      this.log(`closing after ${seconds(this.options.idleMs)} unused`);
      void this.shutdown(connection, false);
    }, this.options.idleMs);
    // An idle server never keeps the worker's process alive.
    this.idleTimer.unref();
  }

  private connect(): Promise<Connection> {
    if (this.shut) return Promise.reject(new Error(`MCP server ${this.name} is closed: the worker is shutting down`));
    if (this.current !== undefined && !this.current.hasClosed) return Promise.resolve(this.current);
    if (this.connecting === undefined) {
      const connecting = this.open();
      this.connecting = connecting;
      const clear = (): void => {
        if (this.connecting === connecting) this.connecting = undefined;
      };
      connecting.then(clear, clear);
    }
    return this.connecting;
  }

  private async open(): Promise<Connection> {
    const connection = await openConnection(this.config, this.options, {
      log: (message) => this.log(message),
      onClose: (closed) => this.closed(closed),
      onToolListChanged: () => this.invalidate(),
    });
    if (this.shut) {
      await this.shutdown(connection, true);
      throw new Error(`MCP server ${this.name} is closed: the worker is shutting down`);
    }
    this.current = connection;
    if (this.catalogue !== undefined) this.catalogueIsOld = true;
    this.log(connection.pid !== undefined ? `started (pid ${connection.pid})` : 'connected');
    return connection;
  }

  /** The connection ended: by our hand, or the server died (then its tool list is listed again after restart). */
  private closed(connection: Connection): void {
    if (this.current !== connection) return;
    this.current = undefined;
    clearTimeout(this.idleTimer);
    if (!connection.closing) {
      this.log(`closed unexpectedly${connection.stderr?.text() ? `; its stderr: ${connection.stderr.text()}` : ''}`);
      this.invalidate();
    }
  }

  private invalidate(): void {
    this.version++;
    this.catalogue = undefined;
    this.listing = undefined;
  }

  private async shutdown(connection: Connection, isFailure: boolean): Promise<void> {
    if (this.current === connection) {
      this.current = undefined;
      if (isFailure) this.invalidate();
    }
    await closeConnection(connection, isFailure, (message) => this.log(message));
  }

  /** Closes the server for good. */
  async close(): Promise<void> {
    this.shut = true;
    clearTimeout(this.idleTimer);
    const pending = this.connecting;
    const connection = this.current;
    if (connection !== undefined) await this.shutdown(connection, false);
    // A start under way closes itself once it sees `shut`.
    if (pending !== undefined) await pending.catch(() => {});
  }
}
