import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './config';
import { explain, seconds } from './errors';
import { StderrTail, kill } from './process';

/** A closing server gets this long to exit after its stdin closes, and again after SIGTERM, before SIGKILL. */
const CLOSE_GRACE_MS = 1000;

/** One live connection to a server: a stdio process or a Streamable HTTP session. */
export interface Connection {
  client: Client;
  transport: StdioClientTransport | StreamableHTTPClientTransport;
  stderr?: StderrTail;
  pid?: number;
  /** Set when we close it: its end is then no failure. */
  closing: boolean;
  hasClosed: boolean;
  closed: Promise<void>;
}

/** What the session hears from a connection it opened. */
export interface ConnectionEvents {
  log: (message: string) => void;
  onClose: (connection: Connection) => void;
  onToolListChanged: () => void;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Starts or connects to the server; one that has not answered `initialize` within `startTimeoutMs` is killed. */
export async function openConnection(
  config: McpServerConfig,
  options: { clientInfo: { name: string; version: string }; startTimeoutMs: number },
  events: ConnectionEvents,
): Promise<Connection> {
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({
          command: config.command,
          args: config.args,
          // Given explicitly, so the worker's own environment (API keys, encryption keys) never reaches the server.
          env: { ...getDefaultEnvironment(), ...config.env },
          ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
  const client = new Client(options.clientInfo, { capabilities: {} });
  let markClosed = (): void => {};
  const connection: Connection = {
    client,
    transport,
    ...(transport instanceof StdioClientTransport
      ? { stderr: new StderrTail(transport.stderr, (line) => events.log(`stderr: ${line}`)) }
      : {}),
    closing: false,
    hasClosed: false,
    closed: new Promise((resolve) => (markClosed = resolve)),
  };
  client.onclose = () => {
    connection.hasClosed = true;
    markClosed();
    events.onClose(connection);
  };
  client.onerror = (error) => events.log(`transport error: ${explain(error)}`);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    events.log('tools/list_changed: listing its tools again on next use');
    events.onToolListChanged();
  });

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (transport instanceof StdioClientTransport) kill(transport.pid ?? undefined);
    void client.close().catch(() => {});
  }, options.startTimeoutMs);
  try {
    // Our timer acts first, and kills the process, which the SDK's own timeout would leave running.
    await client.connect(transport, { timeout: 2 * options.startTimeoutMs });
  } catch (error) {
    connection.closing = true;
    // Let the last stderr chunks arrive before quoting them.
    await new Promise((resolve) => setImmediate(resolve));
    throw new Error(startFailure(config, options.startTimeoutMs, error, timedOut, connection.stderr?.text() ?? ''));
  } finally {
    clearTimeout(timer);
  }
  if (transport instanceof StdioClientTransport && transport.pid !== null) connection.pid = transport.pid;
  return connection;
}

function startFailure(
  config: McpServerConfig,
  startTimeoutMs: number,
  error: unknown,
  timedOut: boolean,
  stderr: string,
): string {
  const quoted = stderr === '' ? '' : `; its stderr: ${stderr}`;
  if (timedOut) {
    return `MCP server ${config.name} did not answer within ${seconds(startTimeoutMs)}${quoted}`;
  }
  if (config.transport === 'http') {
    const url = new URL(config.url);
    return `MCP server ${config.name} (${url.origin}${url.pathname}) did not connect: ${explain(error)}`;
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return `MCP server ${config.name} exited before answering${stderr === '' ? ' (nothing on its stderr)' : quoted}`;
  }
  return `MCP server ${config.name} could not start: ${explain(error)}${quoted}`;
}

/** Closes a connection: stdin closed (or the HTTP session ended), then a kill if the process lingers. */
export async function closeConnection(
  connection: Connection,
  isFailure: boolean,
  log: (message: string) => void,
): Promise<void> {
  connection.closing = true;
  // A process that has exited may have handed its pid on: never signal it.
  if (connection.hasClosed) return;
  if (isFailure) kill(connection.pid);
  const { transport } = connection;
  const ending = (async () => {
    if (transport instanceof StreamableHTTPClientTransport && !isFailure) {
      await transport.terminateSession().catch(() => {});
    }
    await connection.client.close();
  })().catch((error: unknown) => log(`close: ${explain(error)}`));
  await Promise.race([connection.closed, delay(CLOSE_GRACE_MS)]);
  if (!connection.hasClosed) kill(connection.pid, 'SIGTERM');
  await Promise.race([connection.closed, delay(CLOSE_GRACE_MS)]);
  if (!connection.hasClosed) kill(connection.pid);
  await Promise.race([ending, delay(CLOSE_GRACE_MS)]);
}
