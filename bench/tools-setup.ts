import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../src/dev-server/free-port';
import * as path from 'node:path';
import { z } from 'zod';
import { type CodeTool, defineTool } from '../src/activities/tools/define-tool';
import { parseMcpConfig } from '../src/activities/tools/mcp/config';
import { McpServers } from '../src/activities/tools/mcp/servers';
import { ToolRegistry } from '../src/activities/tools/registry';
import { progress } from './measure';

/** The reference MCP server from the npm registry (a dev dependency), run with this Node. */
export const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

/** The stdio server's name in the MCP config, so its echo is offered as `everything__echo`. */
export const STDIO_SERVER = 'everything';
/** The same server in Streamable HTTP mode: `everything-http__echo`. */
export const HTTP_SERVER = 'everything-http';

/** One way of reaching an echo: the tool name the model calls, and how the report names it. */
export interface ToolKind {
  key: 'echo' | 'code' | 'stdio' | 'http';
  label: string;
  tool: string;
}

/** What is measured, the built-in `echo` first: every ratio is to it. */
export const TOOL_KINDS: readonly ToolKind[] = [
  { key: 'echo', label: 'built-in echo', tool: 'echo' },
  { key: 'code', label: 'code tool (defineTool)', tool: 'bench_echo' },
  { key: 'stdio', label: 'MCP stdio', tool: `${STDIO_SERVER}__echo` },
  { key: 'http', label: 'MCP Streamable HTTP', tool: `${HTTP_SERVER}__echo` },
];

/** The code-defined counterpart of the built-in `echo`: same argument, same kind of result. */
export function benchEchoTool(): CodeTool {
  return defineTool({
    name: 'bench_echo',
    description: 'Returns the message, prefixed: the benchmark counterpart of the built-in echo.',
    input: z.object({ message: z.string().describe('Message to echo') }),
    run: ({ message }) => `ECHO: ${message}`,
  });
}

/** Ends a process started with `detached: true`, and everything it started. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** server-everything in Streamable HTTP mode on a loopback port (it reads PORT), in a process group of its own. */
async function startHttpServer(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the HTTP MCP server did not start: ${stderr}`)), 15_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('listening on port')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`the HTTP MCP server exited: ${stderr}`)));
    });
  } catch (error) {
    killGroup(child);
    throw error;
  }
  child.stderr!.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** The worker's tools besides the built-ins, as a worker configured with both servers and the code tool has them. */
export interface BenchTools {
  registry: ToolRegistry;
  /** The Streamable HTTP server's endpoint. */
  httpUrl: string;
  /** The stdio server's process id once it runs, to check it ended. */
  stdioPid(): number | undefined;
  close(): Promise<void>;
}

/**
 * Starts the HTTP server and builds the registry: the code tool, server-everything over stdio (started on first
 * use, by the registry) and over Streamable HTTP. `close` ends both servers, and so does this process's exit.
 */
export async function startBenchTools(): Promise<BenchTools> {
  const http = await startHttpServer();
  const killOnExit = () => killGroup(http.child);
  process.once('exit', killOnExit);
  progress(`MCP server ${HTTP_SERVER}: listening at ${http.url} (pid ${http.child.pid})`);
  const config = parseMcpConfig(
    {
      mcpServers: {
        [STDIO_SERVER]: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
        [HTTP_SERVER]: { url: http.url },
      },
    },
    'bench config',
  );
  const servers = new McpServers(config, { log: progress });
  const registry = new ToolRegistry([benchEchoTool()], servers);
  let lastStdioPid: number | undefined;
  return {
    registry,
    httpUrl: http.url,
    stdioPid: () => (lastStdioPid = servers.pidOf(STDIO_SERVER) ?? lastStdioPid),
    async close() {
      const pid = servers.pidOf(STDIO_SERVER) ?? lastStdioPid;
      await registry.close();
      killOnExit();
      process.removeListener('exit', killOnExit);
      if (pid !== undefined && isRunning(pid)) {
        progress(`MCP server ${STDIO_SERVER}: pid ${pid} outlived close; killing it`);
        process.kill(pid, 'SIGKILL');
      }
    },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
