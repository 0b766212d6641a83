import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Activities } from '../src/activities';
import { EVERYTHING } from './tools-setup';

/** A bare SDK client's `echo` in the shape of `runTool`, and what closes it. */
export interface RawEcho {
  runTool: Activities['runTool'];
  close(): Promise<void>;
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<RawEcho> {
  const client = new Client({ name: 'durable-scratchpad-bench', version: '0' }, { capabilities: {} });
  await client.connect(transport);
  return {
    // Nothing of ours: no registry, no schema check, no result mapping, no observation store.
    async runTool(call) {
      const result = await client.callTool({ name: 'echo', arguments: call.args });
      return result.isError
        ? { ok: false, error: JSON.stringify(result.content) }
        : { ok: true, result: result.content };
    },
    close: () => client.close(),
  };
}

/**
 * The MCP SDK's client alone against server-everything, as a reference for what the protocol and the server cost:
 * a second stdio server of its own (the SDK ends it on close), and a second session on the HTTP server.
 */
export async function openRawEchoes(httpUrl: string): Promise<{ stdio: RawEcho; http: RawEcho }> {
  const stdio = await connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      env: getDefaultEnvironment(),
      stderr: 'ignore',
    }),
  );
  try {
    return { stdio, http: await connect(new StreamableHTTPClientTransport(new URL(httpUrl))) };
  } catch (error) {
    await stdio.close();
    throw error;
  }
}
