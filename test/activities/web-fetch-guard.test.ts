import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runToolCall } from '../../src/activities/tools';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { Observation } from '../../src/core/tools/observation';
import { loadConfig } from '../../src/config';
import { toolOptions } from '../../src/workers/create-worker';

let server: http.Server;
let port: number;
let requests = 0;
let step = 0;

const base: ToolOptions = {
  sandboxRoot: '/nonexistent',
  shellAllow: [],
  shellTimeoutMs: 1000,
  fetchAllowHosts: ['*'],
  fetchMaxBytes: 1024,
};

function fetchWith(url: string, overrides: Partial<ToolOptions> = {}): Promise<Observation> {
  return runToolCall({ cycleId: 'test', step: step++, name: 'web_fetch', args: { url } }, { ...base, ...overrides });
}

beforeAll(async () => {
  server = http.createServer((request, response) => {
    requests++;
    const redirects: Record<string, string> = {
      '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
      '/to-other-loopback': `http://127.0.0.2:${port}/hello`,
      '/to-other-port': `http://127.0.0.1:${port + 1}/hello`,
      '/to-dead': `http://127.0.0.1:${port}/dead`,
      '/to-credentials': `http://admin:hunter2@127.0.0.1:${port}/hello`,
    };
    const location = redirects[request.url ?? ''];
    if (location) response.writeHead(302, { location }).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = 0;
});

test('the default configuration allows no host at all', async () => {
  const observation = await fetchWith(`http://127.0.0.1:${port}/hello`, toolOptions(loadConfig({})));
  expect(observation).toEqual({
    ok: false,
    error: 'no host is allowed: an operator lists the hosts the agent may fetch in SCRATCHPAD_FETCH_ALLOW',
  });
  expect(requests).toBe(0);
});

test.each([
  ['http://127.0.0.1/', /127\.0\.0\.1 is a loopback address, which is refused unless allowed/],
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local \(cloud metadata\) address/],
  ['http://10.1.2.3/', /10\.1\.2\.3 is a private address/],
  ['http://192.168.1.1/', /private address/],
  ['http://[::1]/', /::1 is a loopback address/],
  ['http://[fd00::1]/', /fd00::1 is a unique-local address/],
  ['http://[fe80::1]/', /link-local address/],
  ['http://[::ffff:127.0.0.1]/', /::ffff:7f00:1 is a loopback address/],
  ['http://0.0.0.0/', /"this network" address/],
])('with every host allowed, %s is still refused', async (url, message) => {
  expect(await fetchWith(url)).toEqual({ ok: false, error: expect.stringMatching(message) });
});

test('a host name is checked after DNS resolution', async () => {
  const observation = await fetchWith(`http://localhost/hello`);
  expect(observation.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1) is a loopback address/);
  expect(requests).toBe(0);
});

test('ports other than 80 and 443 are refused unless configured', async () => {
  const observation = await fetchWith(`http://127.0.0.1:${port}/hello`, { fetchAllowAddresses: ['127.0.0.1/32'] });
  expect(observation.error).toBe(`port ${port} is not allowed (allowed: 80, 443; SCRATCHPAD_FETCH_PORTS)`);
  expect(requests).toBe(0);
});

describe('with loopback and the port allowed explicitly', () => {
  const local: Partial<ToolOptions> = {};
  beforeAll(() => Object.assign(local, { fetchAllowAddresses: ['127.0.0.1/32'], fetchAllowPorts: [port, 80] }));

  test('it fetches', async () => {
    expect(await fetchWith(`http://127.0.0.1:${port}/hello`, local)).toMatchObject({ ok: true, result: 'reached' });
  });

  test.each([
    ['/to-metadata', /refused redirect .* 169\.254\.169\.254 is a link-local/],
    ['/to-other-loopback', /refused redirect .* 127\.0\.0\.2 is a loopback address/],
    ['/to-other-port', /refused redirect .* port \d+ is not allowed/],
  ])('every redirect is checked again: %s', async (route, message) => {
    const observation = await fetchWith(`http://127.0.0.1:${port}${route}`, local);
    expect(observation).toEqual({ ok: false, error: expect.stringMatching(message) });
    expect(requests).toBe(1);
  });

  test('a denied URL (a research run tombstone) is refused before any request, and as a redirect target', async () => {
    const dead = `http://127.0.0.1:${port}/dead`;
    const denied = { ...local, fetchDeniedUrls: new Map([[dead, 'is tombstoned in this run: never fetched again']]) };
    for (const spelling of ['/./dead', '/dead?', '/dead#top', '/%64e%61d']) {
      expect(await fetchWith(`http://127.0.0.1:${port}${spelling}`, denied)).toEqual({
        ok: false,
        error: expect.stringMatching(/ is tombstoned in this run: never fetched again$/),
      });
    }
    expect(requests).toBe(0);
    expect(await fetchWith(`http://127.0.0.1:${port}/to-dead`, denied)).toEqual({
      ok: false,
      error: `refused redirect from http://127.0.0.1:${port}/to-dead to ${dead}: ${dead} is tombstoned in this run: never fetched again`,
    });
    expect(requests).toBe(1);
    expect(await fetchWith(`http://127.0.0.1:${port}/to-dead`, local)).toMatchObject({ ok: true, result: 'reached' });
  });

  test.each([
    ['user:pass@', 'http://***@127.0.0.1:PORT/hello'],
    ['user@', 'http://***@127.0.0.1:PORT/hello'],
    [':pass@', 'http://***@127.0.0.1:PORT/hello'],
  ])('a URL with credentials (%s) is refused before any request, and never echoed', async (credentials, masked) => {
    const observation = await fetchWith(`http://${credentials}127.0.0.1:${port}/hello`, local);
    expect(observation).toEqual({
      ok: false,
      error: `a URL may not carry a user name or password (${masked.replace('PORT', String(port))}): fetch it without them`,
    });
    expect(requests).toBe(0);
  });

  test('a redirect to a URL with credentials is refused, the credentials masked', async () => {
    const observation = await fetchWith(`http://127.0.0.1:${port}/to-credentials`, local);
    expect(observation).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^refused redirect .* to http:\/\/\*\*\*@127\.0\.0\.1:\d+\/hello: a URL may not carry a user name or password/,
      ),
    });
    expect(observation.error).not.toContain('hunter2');
    expect(requests).toBe(1);
  });

  test('another loopback address outside the allowed range is refused', async () => {
    expect((await fetchWith(`http://127.0.0.2:${port}/hello`, local)).error).toMatch(/127\.0\.0\.2 is a loopback/);
  });
});
