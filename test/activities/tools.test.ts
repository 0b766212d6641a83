import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { runToolCall } from '../../src/activities/tools';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { Observation } from '../../src/core/tools/observation';

let temporary: string;
let sandboxRoot: string;
let outside: string;
let options: ToolOptions;
let step = 0;

function run(name: string, args: Record<string, unknown>, overrides: Partial<ToolOptions> = {}): Promise<Observation> {
  return runToolCall({ cycleId: 'test', step: step++, name, args }, { ...options, ...overrides });
}

beforeEach(async () => {
  temporary = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-tools-')));
  sandboxRoot = path.join(temporary, 'sandbox');
  outside = path.join(temporary, 'outside');
  await fs.mkdir(outside);
  options = {
    sandboxRoot,
    shellAllow: ['echo', 'pwd', 'ls', 'sleep', 'cat'],
    shellTimeoutMs: 5_000,
    fetchAllowHosts: ['127.0.0.1'],
    fetchMaxBytes: 1024 * 1024,
  };
});

afterEach(async () => {
  await fs.rm(temporary, { recursive: true, force: true });
});

test('echo returns the message', async () => {
  expect(await run('echo', { message: 'hi' })).toEqual({ ok: true, result: 'ECHO: hi' });
});

describe('arguments and names', () => {
  test('invalid arguments are an ok:false observation naming the field', async () => {
    const observation = await run('echo', { message: 42 });
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatch(/invalid arguments for echo/);
    expect(observation.error).toMatch(/message/);
  });

  test('an unknown tool lists the available ones', async () => {
    expect(await run('rm_rf', {})).toEqual({
      ok: false,
      error: 'unknown tool "rm_rf" (available: echo, shell, fs_read, fs_write, web_fetch, web_search)',
    });
  });
});

describe('shell', () => {
  test('runs an allowed program with quoted arguments', async () => {
    const observation = await run('shell', { command: `echo 'a  b' "c d" e` });
    expect(observation).toEqual({ ok: true, result: { exit_code: 0, stdout: 'a  b c d e\n', stderr: '' } });
  });

  test('runs in the sandbox root, creating it if missing', async () => {
    const observation = await run('shell', { command: 'pwd' });
    expect(observation.ok).toBe(true);
    expect(observation.result).toMatchObject({ stdout: `${sandboxRoot}\n` });
  });

  test('refuses a program that is not allowed', async () => {
    const observation = await run('shell', { command: 'rm -rf x' });
    expect(observation).toEqual({
      ok: false,
      error: expect.stringMatching(/program "rm" is not allowed \(allowed: echo/),
    });
  });

  test('refuses a program given as a path', async () => {
    expect((await run('shell', { command: '/bin/echo hi' })).error).toMatch(/bare name/);
  });

  test.each([
    'echo a; ls',
    'echo a | cat',
    'echo $HOME',
    'echo `pwd`',
    'cat < x',
    'echo a > x',
    'echo a && ls',
    'echo "$HOME"',
  ])('refuses shell metacharacters: %s', async (command) => {
    const observation = await run('shell', { command });
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatch(/metacharacter .* not supported: commands run without a shell/);
  });

  test('passes metacharacters inside single quotes literally', async () => {
    const observation = await run('shell', { command: "echo 'a;b|c $d'" });
    expect(observation.result).toMatchObject({ stdout: 'a;b|c $d\n' });
  });

  test('refuses unquoted globs, which no shell would expand, and passes quoted ones', async () => {
    expect((await run('shell', { command: 'ls *.txt' })).error).toMatch(/glob, but there is no shell/);
    expect((await run('shell', { command: "echo '*.txt'" })).result).toMatchObject({ stdout: '*.txt\n' });
  });

  test('refuses an unterminated quote', async () => {
    expect((await run('shell', { command: 'echo "abc' })).error).toMatch(/unterminated " quote/);
  });

  test('sees nothing outside the sandbox and the system directories', async () => {
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
    const passwd = await run('shell', { command: 'cat /etc/passwd' });
    expect(passwd).toMatchObject({ ok: false, result: { stdout: '' } });
    expect((await run('shell', { command: 'ls ../outside' })).result).toMatchObject({ stdout: '' });
  });

  test('reports a non-zero exit with its output', async () => {
    const observation = await run('shell', { command: 'ls does-not-exist' });
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatch(/exited with code [1-9]/);
    expect(observation.result).toMatchObject({ exit_code: expect.any(Number), stdout: '' });
    expect((observation.result as { stderr: string }).stderr).toMatch(/does-not-exist/);
  });

  test('kills a command that outlives its timeout', async () => {
    const started = Date.now();
    const observation = await run('shell', { command: 'sleep 30', timeout_ms: 200 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatch(/timed out after 200 ms/);
  });

  test('caps each output stream', async () => {
    await fs.mkdir(sandboxRoot, { recursive: true });
    await fs.writeFile(path.join(sandboxRoot, 'big.txt'), 'x'.repeat(1024 * 1024 + 10));
    const observation = await run('shell', { command: 'cat big.txt' });
    const stdout = (observation.result as { stdout: string }).stdout;
    expect(stdout.startsWith('x'.repeat(1024 * 1024))).toBe(true);
    expect(stdout).toMatch(/\[output truncated at 1048576 bytes per stream\]$/);
  });
});

describe('fs_read and fs_write', () => {
  test('round-trips UTF-8 text, creating parent directories', async () => {
    const content = 'héllo wörld ✓\n';
    const written = await run('fs_write', { path: 'notes/a/b.txt', content });
    const bytes = Buffer.byteLength(content);
    expect(written).toEqual({
      ok: true,
      result: `wrote ${bytes} bytes to notes/a/b.txt`,
      path: 'notes/a/b.txt',
      bytes,
    });
    expect(await run('fs_read', { path: 'notes/a/b.txt' })).toEqual({
      ok: true,
      result: content,
      path: 'notes/a/b.txt',
      bytes,
      encoding: 'utf-8',
    });
  });

  test('reads a binary file as base64', async () => {
    const data = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]);
    await fs.mkdir(sandboxRoot, { recursive: true });
    await fs.writeFile(path.join(sandboxRoot, 'blob.bin'), data);
    expect(await run('fs_read', { path: 'blob.bin' })).toEqual({
      ok: true,
      result: data.toString('base64'),
      path: 'blob.bin',
      bytes: 6,
      encoding: 'binary',
    });
  });

  test('reads text as base64 when binary is asked for', async () => {
    await run('fs_write', { path: 't.txt', content: 'abc' });
    expect(await run('fs_read', { path: 't.txt', encoding: 'binary' })).toMatchObject({
      result: 'YWJj',
      encoding: 'binary',
    });
  });

  test('a missing file or a directory is a clear ok:false', async () => {
    await fs.mkdir(path.join(sandboxRoot, 'dir'), { recursive: true });
    expect(await run('fs_read', { path: 'missing.txt' })).toEqual({ ok: false, error: 'no such file: missing.txt' });
    expect(await run('fs_read', { path: 'dir' })).toEqual({ ok: false, error: 'is a directory, not a file: dir' });
  });

  test('.. inside the sandbox is fine', async () => {
    await run('fs_write', { path: 'a/../b.txt', content: 'x' });
    expect(await run('fs_read', { path: 'b.txt' })).toMatchObject({ ok: true, result: 'x' });
  });

  test.each([
    ['../outside/escape.txt', /path escapes the sandbox: \.\.\/outside\/escape\.txt/],
    ['a/../../outside/escape.txt', /path escapes the sandbox/],
  ])('refuses %s and writes nothing outside', async (userPath, message) => {
    expect(await run('fs_write', { path: userPath, content: 'pwned' })).toEqual({
      ok: false,
      error: expect.stringMatching(message),
    });
    expect((await run('fs_read', { path: userPath })).error).toMatch(message);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  test('refuses absolute paths', async () => {
    const target = path.join(outside, 'escape.txt');
    expect((await run('fs_write', { path: target, content: 'pwned' })).error).toMatch(/absolute paths are not allowed/);
    expect((await run('fs_read', { path: '/etc/hostname' })).error).toMatch(/absolute paths are not allowed/);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  test('refuses symlinks that lead outside, through a directory or to a file', async () => {
    await fs.mkdir(sandboxRoot, { recursive: true });
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
    await fs.symlink(outside, path.join(sandboxRoot, 'door'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(sandboxRoot, 'secret-link'));
    await fs.symlink(path.join(outside, 'not-yet.txt'), path.join(sandboxRoot, 'dangling'));

    expect((await run('fs_read', { path: 'door/secret.txt' })).error).toMatch(/escapes the sandbox through a symlink/);
    expect((await run('fs_read', { path: 'secret-link' })).error).toMatch(/escapes the sandbox through a symlink/);
    expect((await run('fs_write', { path: 'door/new/file.txt', content: 'x' })).error).toMatch(/through a symlink/);
    expect((await run('fs_write', { path: 'secret-link', content: 'x' })).error).toMatch(/through a symlink/);
    expect((await run('fs_write', { path: 'dangling', content: 'x' })).error).toMatch(/through a symlink/);

    expect(await fs.readdir(outside)).toEqual(['secret.txt']);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf-8')).toBe('secret');
  });

  test('follows symlinks that stay inside', async () => {
    await run('fs_write', { path: 'real/file.txt', content: 'inside' });
    await fs.symlink(path.join(sandboxRoot, 'real'), path.join(sandboxRoot, 'alias'));
    expect(await run('fs_read', { path: 'alias/file.txt' })).toMatchObject({ ok: true, result: 'inside' });
  });
});

describe('web_fetch', () => {
  let server: http.Server;
  let base: string;
  let port: number;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const routes: Record<string, () => void> = {
        '/hello': () => response.writeHead(200, { 'content-type': 'text/plain' }).end('hello'),
        '/big': () => response.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(10_000)),
        '/missing': () => response.writeHead(404, { 'content-type': 'text/plain' }).end('nope'),
        '/redirect-in': () => response.writeHead(302, { location: '/hello' }).end(),
        '/redirect-out': () => response.writeHead(302, { location: `http://localhost:${port}/hello` }).end(),
        '/loop': () => response.writeHead(302, { location: '/loop' }).end(),
      };
      (routes[request.url ?? ''] ?? routes['/missing']!)();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  // Loopback and a port other than 80 and 443 are refused unless allowed explicitly.
  beforeEach(() => {
    options = { ...options, fetchAllowAddresses: ['127.0.0.1/32'], fetchAllowPorts: [port] };
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('fetches from an allowed host', async () => {
    expect(await run('web_fetch', { url: `${base}/hello` })).toEqual({
      ok: true,
      result: 'hello',
      url: `${base}/hello`,
      status: 200,
      content_type: 'text/plain',
      bytes: 5,
      truncated: false,
      encoding: 'utf-8',
    });
  });

  test('refuses a host outside the allow-list', async () => {
    expect(await run('web_fetch', { url: `http://localhost:${port}/hello` })).toEqual({
      ok: false,
      error: 'host "localhost" is not allowed (allowed: 127.0.0.1)',
    });
  });

  test('refuses schemes other than http and https', async () => {
    expect((await run('web_fetch', { url: 'file:///etc/passwd' })).error).toMatch(/only http and https/);
  });

  test('truncates at max_bytes and says so', async () => {
    expect(await run('web_fetch', { url: `${base}/big`, max_bytes: 100 })).toMatchObject({
      ok: true,
      result: 'y'.repeat(100),
      bytes: 100,
      truncated: true,
    });
  });

  test('max_bytes is capped by the configured maximum', async () => {
    const observation = await run('web_fetch', { url: `${base}/big`, max_bytes: 1_000_000 }, { fetchMaxBytes: 50 });
    expect(observation).toMatchObject({ bytes: 50, truncated: true });
  });

  test('an HTTP error status is ok:false with the body', async () => {
    expect(await run('web_fetch', { url: `${base}/missing` })).toMatchObject({
      ok: false,
      status: 404,
      result: 'nope',
      error: 'HTTP 404 Not Found',
    });
  });

  test('follows a redirect to an allowed host', async () => {
    expect(await run('web_fetch', { url: `${base}/redirect-in` })).toMatchObject({
      ok: true,
      result: 'hello',
      url: `${base}/hello`,
    });
  });

  test('refuses a redirect to a host outside the allow-list', async () => {
    const observation = await run('web_fetch', { url: `${base}/redirect-out` });
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatch(/refused redirect .* host "localhost" is not allowed/);
  });

  test('stops after five redirects', async () => {
    expect((await run('web_fetch', { url: `${base}/loop` })).error).toMatch(/too many redirects/);
  });
});

test('runTool activity runs a tool in an activity context', async () => {
  const activities = createActivities({
    resolveModel: () => {
      throw new Error('no model in this test');
    },
    tools: options,
  });
  const environment = new MockActivityEnvironment();
  const call = { cycleId: 'cycle-1', step: 0, name: 'fs_write', args: { path: 'x.txt', content: 'from activity' } };
  expect(await environment.run(activities.runTool, call)).toMatchObject({ ok: true, bytes: 13 });
  expect(await fs.readFile(path.join(sandboxRoot, 'x.txt'), 'utf-8')).toBe('from activity');
  expect(await environment.run(activities.runTool, { ...call, name: 'nope' })).toMatchObject({ ok: false });
});

describe('web_search', () => {
  let server: http.Server;
  let searchUrl: string;
  let body = '';

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.searchParams.get('format') !== 'json') return void response.writeHead(400).end();
      if (url.searchParams.get('q') === 'endless') {
        // Streams until the client goes away: the tool must stop reading at its cap.
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = (): void => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', pump);
        };
        return void pump();
      }
      if (url.searchParams.get('q') === 'silent') return; // never answers
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    searchUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('returns http(s) results from a SearXNG-style endpoint, cut to max_results', async () => {
    body = JSON.stringify({
      results: [
        { url: 'https://a.example/1', title: 'One', content: 'x'.repeat(1000) },
        { url: 'javascript:alert(1)', title: 'Bad' },
        { url: 'http://b.example/2', title: 2 },
        { url: 'http://c.example/3' },
      ],
    });
    const observation = await run('web_search', { query: 'acme revenue', max_results: 2 }, { searchUrl });
    expect(observation).toMatchObject({
      ok: true,
      result: [
        { url: 'https://a.example/1', title: 'One' },
        { url: 'http://b.example/2', title: '', snippet: '' },
      ],
    });
    expect((observation.result as { snippet: string }[])[0]?.snippet).toHaveLength(300);
  });

  test('refuses when not configured, and reports a non-JSON answer', async () => {
    expect(await run('web_search', { query: 'q' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('SCRATCHPAD_SEARCH_URL'),
    });
    body = '<html>';
    expect(await run('web_search', { query: 'q' }, { searchUrl })).toEqual({
      ok: false,
      error: 'search endpoint did not answer JSON',
    });
    expect((await run('web_search', { query: '' }, { searchUrl })).error).toContain('invalid arguments for web_search');
  });

  test('stops reading an endless answer at 1 MB, and gives up on a silent endpoint when cancelled', async () => {
    expect(await run('web_search', { query: 'endless' }, { searchUrl })).toEqual({
      ok: false,
      error: 'search response over 1 MB',
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const observation = await run('web_search', { query: 'silent' }, { searchUrl, signal: controller.signal });
    expect(observation).toMatchObject({ ok: false, error: expect.stringContaining('search endpoint unreachable') });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('says so when the endpoint is down', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const observation = await run('web_search', { query: 'q' }, { searchUrl: `http://127.0.0.1:${port}/search` });
    expect(observation).toMatchObject({ ok: false, error: expect.stringContaining('(ECONNREFUSED)') });
  });
});
