import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type McpConfig, loadMcpConfig, parseMcpConfig } from '../../src/activities/tools/mcp/config';
import { toolNameOf, toolNamesOf } from '../../src/activities/tools/mcp/names';
import { observationOf } from '../../src/activities/tools/mcp/results';
import { McpServers } from '../../src/activities/tools/mcp/servers';
import { EVERYTHING, MEMORY, freePort, killGroup, startHttpServer } from '../helpers/mcp';
import { waitFor } from '../helpers/temporal';

const CANARY = `canary-${process.pid}-${Date.now()}`;
// Set before any server starts: a stdio server must never see the worker's own environment.
process.env.SCRATCHPAD_CANARY = CANARY;

let temporary: string;

beforeAll(async () => {
  temporary = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-mcp-')));
});

afterAll(async () => {
  await fs.rm(temporary, { recursive: true, force: true });
});

function everything(env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [EVERYTHING, 'stdio'], env };
}

function nodeServer(script: string): Record<string, unknown> {
  return { command: process.execPath, args: ['-e', script] };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP config', () => {
  test('reads stdio and HTTP servers with their policy, skips disabled ones, warns of unknown keys', async () => {
    const file = path.join(temporary, 'config-ok.json');
    await fs.writeFile(
      file,
      JSON.stringify({
        globalShortcut: 'Ctrl+Space',
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'x'], env: { TOKEN: 't', PORT: 8080 }, cwd: 'work', timeoutMs: 5000 },
          remote: {
            type: 'http',
            url: 'https://example.com/mcp',
            headers: { Authorization: 'Bearer x' },
            retry: false,
          },
          typed: { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp', approve: ['delete'], envFile: '.env' },
          off: { type: 'sse', url: 'http://x', disabled: true },
        },
      }),
    );
    const config = loadMcpConfig(file);
    expect(config.servers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'x'],
        env: { TOKEN: 't', PORT: '8080' },
        cwd: path.join(temporary, 'work'),
        policy: { timeoutMs: 5000 },
      },
      {
        name: 'remote',
        transport: 'http',
        url: 'https://example.com/mcp',
        headers: { Authorization: 'Bearer x' },
        policy: { retry: false },
      },
      {
        name: 'typed',
        transport: 'http',
        url: 'http://127.0.0.1:1/mcp',
        headers: {},
        policy: { approve: ['delete'] },
      },
    ]);
    expect(config.warnings).toEqual([`${file}: server "typed": ignoring unknown "envFile"`]);
  });

  test('refuses SSE, bad names and bad fields with one line per problem naming the server and the field', () => {
    const longName = 'a'.repeat(41);
    const attempt = () =>
      parseMcpConfig(
        {
          mcpServers: {
            old: { type: 'sse', url: 'http://127.0.0.1/sse' },
            'bad name': { command: 'x' },
            [longName]: { command: 'x' },
            a__b: { command: 'x' },
            slow: { command: 'x', timeoutMs: 3_600_001 },
            both: { command: 'x', url: 'http://127.0.0.1/mcp' },
            neither: { args: ['x'] },
            ftp: { url: 'ftp://example.com' },
            env: { command: 'x', env: { A: { nested: true } } },
          },
        },
        'mcp.json',
      );
    expect(attempt).toThrow();
    let message = '';
    try {
      attempt();
    } catch (error) {
      message = (error as Error).message;
    }
    const lines = message.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^mcp\.json: server "old": "type": "sse" is not supported: only stdio and Streamable HTTP/),
      expect.stringMatching(/^mcp\.json: server "bad name": bad server name: use only letters, digits/),
      expect.stringMatching(new RegExp(`^mcp\\.json: server "${longName}": bad server name: .*at most 40 characters`)),
      expect.stringMatching(/^mcp\.json: server "a__b": bad server name: it must not contain "__"/),
      expect.stringMatching(/^mcp\.json: server "slow": "timeoutMs": /),
      expect.stringMatching(/^mcp\.json: server "both": "command" and "url": give one, not both/),
      expect.stringMatching(/^mcp\.json: server "neither": needs "command" \(a stdio server\) or "url"/),
      expect.stringMatching(/^mcp\.json: server "ftp": "url": must be an http\(s\) URL/),
      expect.stringMatching(/^mcp\.json: server "env": "env\.A": /),
    ]);
  });

  test('a missing file, bad JSON or a config without servers names the file', async () => {
    const missing = path.join(temporary, 'missing.json');
    expect(() => loadMcpConfig(missing)).toThrow(`${missing}: no such MCP config file`);
    const bad = path.join(temporary, 'bad.json');
    await fs.writeFile(bad, '{"mcpServers": {');
    expect(() => loadMcpConfig(bad)).toThrow(
      new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not valid JSON`),
    );
    expect(() => parseMcpConfig({ tools: [] }, 'x.json')).toThrow('x.json: "mcpServers" must be an object');
    expect(parseMcpConfig({ servers: { a: { command: 'x' } } }, 'vscode.json').servers).toHaveLength(1);
  });
});

describe('tool names', () => {
  test('SERVER__TOOL with characters outside A-Za-z0-9_- replaced, at most 64 characters', () => {
    expect(toolNameOf('everything', 'get-tiny-image')).toBe('everything__get-tiny-image');
    expect(toolNameOf('fs', 'read.file/ä')).toBe('fs__read_file__');
    const long = toolNameOf('server', 'x'.repeat(100));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^server__x{47}_[0-9a-f]{8}$/);
    expect(toolNameOf('server', 'x'.repeat(100))).toBe(long);
  });

  test('collisions within a server get distinct names whatever the listing order', () => {
    const tools = ['a.b', 'a/b', 'a_b', 'c', `${'y'.repeat(70)}1`, `${'y'.repeat(70)}2`];
    const names = toolNamesOf('s', tools);
    const reversed = toolNamesOf('s', [...tools].reverse());
    expect([...names.entries()].sort()).toEqual([...reversed.entries()].sort());
    expect(new Set(names.values()).size).toBe(tools.length);
    expect(names.get('c')).toBe('s__c');
    for (const name of names.values()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names.get('a.b')).toMatch(/^s__a_b_[0-9a-f]{8}$/);
  });
});

describe('observationOf', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  test('text, embedded text resources and resource links are joined; structured content is kept', () => {
    const result = {
      content: [
        { type: 'text', text: 'one' },
        { type: 'resource', resource: { uri: 'file:///a', mimeType: 'text/plain', text: 'two' } },
        { type: 'resource_link', uri: 'file:///b', name: 'b.txt' },
      ],
      structuredContent: { n: 1 },
    } as CallToolResult;
    expect(observationOf(result)).toEqual({
      ok: true,
      result: 'one\ntwo\nresource link: file:///b (b.txt)',
      structured: { n: 1 },
    });
    expect(observationOf({ content: [], structuredContent: { n: 2 } })).toEqual({ ok: true, result: { n: 2 } });
  });

  test('isError is an ok: false observation, with its structured content', () => {
    expect(observationOf({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toEqual({
      ok: false,
      error: 'no such file',
    });
    expect(observationOf({ content: [], isError: true, structuredContent: { code: 2 } })).toEqual({
      ok: false,
      error: 'the tool reported an error',
      structured: { code: 2 },
    });
  });

  test('one binary item is a binary observation; binary among text is an attachment', () => {
    const audio = { type: 'audio', data: png.toString('base64'), mimeType: 'audio/wav' } as const;
    expect(observationOf({ content: [audio] })).toEqual({
      ok: true,
      result: png.toString('base64'),
      encoding: 'base64',
      mime_type: 'audio/wav',
      bytes: png.length,
    });
    expect(observationOf({ content: [{ type: 'text', text: 'see' }, audio] })).toEqual({
      ok: true,
      result: 'see',
      attachments: [{ type: 'audio', mime_type: 'audio/wav', bytes: png.length, sha256: sha(png) }],
    });
  });
});

describe('MCP servers, real ones', () => {
  let httpServer: ChildProcess | undefined;
  let port: number;
  let memoryFile: string;
  let servers: McpServers;
  const logs: string[] = [];

  beforeAll(async () => {
    port = await freePort();
    httpServer = await startHttpServer(port);
    memoryFile = path.join(temporary, 'memory.jsonl');
    const file = path.join(temporary, 'mcp.json');
    await fs.writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          everything: { ...everything({ SCRATCHPAD_NAMED: 'named-value' }), timeoutMs: 20_000 },
          memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
          web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
        },
      }),
    );
    servers = new McpServers(loadMcpConfig(file), { log: (line) => logs.push(line) });
  });

  afterAll(async () => {
    await servers.close();
    killGroup(httpServer);
  });

  test('lists every server as SERVER__TOOL with capped descriptions and object schemas', async () => {
    const { tools, failures } = await servers.list();
    expect(failures).toEqual([]);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'everything__echo',
        'everything__get-tiny-image',
        'everything__get-env',
        'memory__create_entities',
        'web__echo',
      ]),
    );
    // It runs only through the SDK's experimental task API, so it is not offered.
    expect(names).not.toContain('everything__simulate-research-query');
    const echo = tools.find((tool) => tool.name === 'everything__echo')!;
    expect(echo).toMatchObject({
      server: 'everything',
      tool: 'echo',
      description: 'Echoes back the input string',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
      policy: { timeoutMs: 20_000 },
    });
    expect(servers.serverOf('everything__echo')).toBe('everything');
    expect(servers.serverOf('nobody__echo')).toBeUndefined();
    expect(servers.policyOf('everything__echo')).toEqual({ timeoutMs: 20_000 });
  });

  test('a text result', async () => {
    expect(await servers.call('everything__echo', { message: 'hi' })).toEqual({ ok: true, result: 'Echo: hi' });
  });

  test('structured content is kept next to its text', async () => {
    const observation = await servers.call('everything__get-structured-content', { location: 'Chicago' });
    const weather = { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 };
    expect(observation).toEqual({ ok: true, result: JSON.stringify(weather), structured: weather });
  });

  test('an image among text is an attachment; a lone blob resource is a binary observation', async () => {
    const image = await servers.call('everything__get-tiny-image', {});
    expect(image).toMatchObject({
      ok: true,
      result: "Here's the image you requested:\nThe image above is the MCP logo.",
      attachments: [{ type: 'image', mime_type: 'image/png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
    });
    expect((image.attachments as { bytes: number }[])[0]!.bytes).toBeGreaterThan(1000);

    const text = 'compress me '.repeat(20);
    const data = `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;
    const blob = await servers.call('everything__gzip-file-as-resource', {
      name: 'a.gz',
      data,
      outputType: 'resource',
    });
    expect(blob).toMatchObject({ ok: true, encoding: 'base64', mime_type: 'application/gzip' });
    const bytes = Buffer.from(blob.result as string, 'base64');
    expect(blob.bytes).toBe(bytes.length);
    expect(gunzipSync(bytes).toString()).toBe(text);
    expect(bytes.length).toBe(gzipSync(Buffer.from(text)).length);
  });

  test('a bad argument the server rejects is an isError observation, not a throw', async () => {
    const observation = await servers.call('everything__get-sum', { a: 'one', b: 2 });
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatch(/Input validation error/);
  });

  test('a stdio server sees only the environment its config names, never the worker’s', async () => {
    const observation = await servers.call('everything__get-env', {});
    const env = JSON.parse(observation.result as string) as Record<string, string>;
    expect(env.SCRATCHPAD_NAMED).toBe('named-value');
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.SCRATCHPAD_CANARY).toBeUndefined();
    expect(observation.result).not.toContain(CANARY);
  });

  test('calls land in the memory server: its file holds the entity', async () => {
    const entities = [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }];
    const observation = await servers.call('memory__create_entities', { entities });
    expect(observation).toMatchObject({ ok: true, structured: { entities } });
    const lines = (await fs.readFile(memoryFile, 'utf-8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([{ type: 'entity', ...entities[0] }]);
  });

  test('Streamable HTTP: text and structured results', async () => {
    expect(await servers.call('web__echo', { message: 'over http' })).toEqual({ ok: true, result: 'Echo: over http' });
    const observation = await servers.call('web__get-structured-content', { location: 'New York' });
    expect(observation.structured).toEqual({ temperature: 33, conditions: 'Cloudy', humidity: 82 });
  });

  test('tools/list_changed marks the list for a refresh', async () => {
    // server-everything registers more tools once initialized, and says so.
    await waitFor(() => logs.some((line) => line.startsWith('MCP server everything: tools/list_changed')), 5000);
    const { tools } = await servers.list();
    expect(tools.map((tool) => tool.name)).toContain('everything__echo');
  });

  test('an unknown tool throws', async () => {
    await expect(servers.call('everything__no-such-tool', {})).rejects.toThrow(
      'unknown MCP tool "everything__no-such-tool": server everything has no such tool',
    );
    await expect(servers.call('nobody__echo', {})).rejects.toThrow('no configured server offers it');
  });

  test('Streamable HTTP: after the server restarted, one call fails and the next reconnects', async () => {
    killGroup(httpServer);
    httpServer = await startHttpServer(port);
    await expect(servers.call('web__echo', { message: 'lost' })).rejects.toThrow(/^MCP server web /);
    expect(await servers.call('web__echo', { message: 'back' })).toEqual({ ok: true, result: 'Echo: back' });
  });
});

describe('stdio server lifecycle', () => {
  function config(servers: Record<string, unknown>): McpConfig {
    return parseMcpConfig({ mcpServers: servers }, 'test');
  }

  test('killed mid-call: the call in flight throws, the next call restarts the server', async () => {
    const servers = new McpServers(config({ everything: everything() }));
    try {
      await servers.call('everything__echo', { message: 'warm' });
      const pid = servers.pidOf('everything')!;
      let heartbeats = 0;
      const call = servers.call(
        'everything__trigger-long-running-operation',
        { duration: 10, steps: 20 },
        {
          heartbeat: () => {
            heartbeats++;
            if (heartbeats === 1) process.kill(pid, 'SIGKILL');
          },
        },
      );
      await expect(call).rejects.toThrow(/^MCP server everything closed the connection while calling/);
      expect(heartbeats).toBeGreaterThanOrEqual(1);
      expect(await servers.call('everything__echo', { message: 'again' })).toEqual({ ok: true, result: 'Echo: again' });
      expect(servers.pidOf('everything')).not.toBe(pid);
      expect(isAlive(pid)).toBe(false);
    } finally {
      await servers.close();
    }
  });

  test('an idle server is closed, and started again on the next call', async () => {
    const logs: string[] = [];
    const servers = new McpServers(config({ everything: everything() }), {
      idleMs: 300,
      log: (line) => logs.push(line),
    });
    try {
      await servers.call('everything__echo', { message: 'one' });
      const pid = servers.pidOf('everything')!;
      // server-everything changes its list once initialized: list it again while it runs.
      await waitFor(() => logs.some((line) => line.includes('tools/list_changed')), 5000);
      await servers.list();
      expect(isAlive(pid)).toBe(true);
      await waitFor(() => !isAlive(pid), 5000);
      expect(servers.pidOf('everything')).toBeUndefined();
      // The list outlives the idle close: listing starts no process.
      expect((await servers.list()).tools.length).toBeGreaterThan(5);
      expect(servers.pidOf('everything')).toBeUndefined();
      expect(await servers.call('everything__echo', { message: 'two' })).toEqual({ ok: true, result: 'Echo: two' });
      expect(servers.pidOf('everything')).not.toBe(pid);
    } finally {
      await servers.close();
    }
  });

  test('a server that never answers gives one clear error within startTimeoutMs, and its process is killed', async () => {
    const pidFile = path.join(temporary, 'hang.pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const servers = new McpServers(config({ hang: nodeServer(script) }), { startTimeoutMs: 1000 });
    try {
      const started = Date.now();
      const { tools, failures } = await servers.list();
      expect(Date.now() - started).toBeLessThan(3000);
      expect(tools).toEqual([]);
      expect(failures).toEqual([{ server: 'hang', error: 'MCP server hang did not answer within 1 s' }]);
      const pid = Number(await fs.readFile(pidFile, 'utf-8'));
      await waitFor(() => !isAlive(pid), 2000);
      await expect(servers.call('hang__anything', {})).rejects.toThrow('MCP server hang did not answer within 1 s');
    } finally {
      await servers.close();
    }
  });

  test('a server that exits at once or cannot start is a failure quoting why; the others still list', async () => {
    const servers = new McpServers(
      config({
        broken: nodeServer("console.error('boom: MISSING_TOKEN is not set'); process.exit(3)"),
        absent: { command: path.join(temporary, 'no-such-command') },
        everything: everything(),
      }),
    );
    try {
      const { tools, failures } = await servers.list();
      expect(tools.map((tool) => tool.name)).toContain('everything__echo');
      expect(failures).toEqual([
        {
          server: 'broken',
          error: 'MCP server broken exited before answering; its stderr: boom: MISSING_TOKEN is not set',
        },
        { server: 'absent', error: expect.stringMatching(/^MCP server absent could not start: .*ENOENT/) },
      ]);
    } finally {
      await servers.close();
    }
  });

  test('close ends every process and is safe to call twice', async () => {
    const servers = new McpServers(config({ everything: everything() }));
    await servers.call('everything__echo', { message: 'x' });
    const pid = servers.pidOf('everything')!;
    await Promise.all([servers.close(), servers.close()]);
    await servers.close();
    expect(isAlive(pid)).toBe(false);
    await expect(servers.list()).rejects.toThrow('MCP servers are closed');
  });
});
