import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../../src/common/encryption-codec';
import { freePort } from '../../src/dev-server/free-port';
import { BIN, runCli } from '../helpers/cli';
import { waitFor } from '../helpers/temporal';

// `scratchpad codec-server` as a user runs it (the built CLI: npx tsc -p tsconfig.build.json), probed over real HTTP.
const key = { id: 'k1', key: new Uint8Array(randomBytes(32)) };
const keyEnv = `k1:${Buffer.from(key.key).toString('base64')}`;
const UI_ORIGIN = 'http://127.0.0.1:8233';
const SECRET = `PANGOLIN-${process.pid} ledger`;
const MB = 1024 * 1024;
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-codec-'));

interface Running {
  child: ChildProcess;
  port: number;
  stderr: string;
  /** The generated token, read from what the command printed. */
  token: string;
}
const started: ChildProcess[] = [];

async function startCodec(extra: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, 'codec-server', '--port', String(port), '--origin', UI_ORIGIN, ...extra],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        SCRATCHPAD_HOME: home,
        SCRATCHPAD_ENCRYPTION_KEYS: keyEnv,
        ...env,
      },
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  started.push(child);
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('temporal CLI:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`codec-server exited with ${code}:\n${stderr}`)));
  });
  const token = /Generated token \(shown once\): (\S+)/.exec(stderr)?.[1] ?? '';
  return { child, port, stderr, token };
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request with full control of its headers (`Host` included); `body` may be a size to stream, chunked. */
function request(
  port: number,
  pathname: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | { chunkedBytes: number } } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: '127.0.0.1', port, path: pathname, method: options.method ?? 'POST', headers: options.headers },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        response.on('error', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    // The server may close mid-upload once it has answered: what counts is its answer.
    let answered = false;
    outgoing.on('response', () => (answered = true));
    outgoing.on('error', (error) => (answered ? undefined : reject(error)));
    const body = options.body;
    if (body === undefined || typeof body === 'string') return void outgoing.end(body);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < body.chunkedBytes && !outgoing.destroyed) {
        sent += chunk.length;
        if (!outgoing.write(chunk)) return void outgoing.once('drain', pump);
      }
      outgoing.end();
    };
    pump();
  });
}

async function encryptedBody(): Promise<string> {
  const [sealed] = await new EncryptionCodec([key]).encode([defaultPayloadConverter.toPayload({ note: SECRET })]);
  const base64 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');
  const metadata = Object.fromEntries(Object.entries(sealed!.metadata ?? {}).map(([name, v]) => [name, base64(v)]));
  return JSON.stringify({ payloads: [{ metadata, data: base64(sealed!.data) }] });
}

function decodedText(reply: Reply): string {
  const { payloads } = JSON.parse(reply.body) as { payloads: { data: string }[] };
  return Buffer.from(payloads[0]!.data, 'base64').toString();
}

/** The highest resident set size the process has had (kB → bytes). */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) * 1024;
}

let codec: Running;
let body: string;

beforeAll(async () => {
  codec = await startCodec();
  body = await encryptedBody();
}, 60_000);

afterAll(() => {
  for (const child of started) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(home, { recursive: true, force: true });
});

describe('scratchpad codec-server', () => {
  it('generates a token when none is given and prints it once, with the endpoint to paste in the Web UI', () => {
    expect(codec.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(codec.stderr.split(codec.token).length - 1).toBe(3);
    expect(codec.stderr).toContain(`Codec Server endpoint http://127.0.0.1:${codec.port}/t/${codec.token}\n`);
  });

  it('uses a token given in SCRATCHPAD_CODEC_TOKEN and never prints it', async () => {
    const token = randomBytes(24).toString('hex');
    const given = await startCodec([], { SCRATCHPAD_CODEC_TOKEN: token });
    expect(given.token).toBe('');
    expect(given.stderr).not.toContain(token);
    expect(given.stderr).toContain(`/t/<token>`);
    const reply = await request(given.port, `/t/${token}/decode`, { body });
    expect(decodedText(reply)).toContain(SECRET);
  });

  it('decodes nothing without the token: 401 and one line of JSON', async () => {
    for (const [pathname, headers] of [
      ['/decode', {}],
      ['/t/not-the-token-at-all/decode', {}],
      ['/decode', { 'x-scratchpad-codec-token': `${codec.token}x` }],
      ['/decode', { authorization: 'Bearer nope' }],
    ] as const) {
      const reply = await request(codec.port, pathname, { headers, body });
      expect(reply.status).toBe(401);
      expect(reply.body).toMatch(/^\{"error":"a token is required[^\n]*"\}\n$/);
      expect(reply.body).not.toContain('PANGOLIN');
    }
  });

  it('decrypts a real encrypted payload with the token in the path, its header or Authorization: Bearer', async () => {
    for (const [pathname, headers] of [
      [`/t/${codec.token}/decode`, { origin: UI_ORIGIN }],
      ['/decode', { 'x-scratchpad-codec-token': codec.token }],
      ['/decode', { authorization: `Bearer ${codec.token}` }],
    ] as const) {
      const reply = await request(codec.port, pathname, { headers, body });
      expect(reply.status).toBe(200);
      expect(decodedText(reply)).toContain(SECRET);
    }
  });

  it('refuses a Host that is not its own (DNS rebinding) and an origin that is not the UI', async () => {
    const withToken = `/t/${codec.token}/decode`;
    const rebound = await request(codec.port, withToken, { headers: { host: `attacker.example:${codec.port}` }, body });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('PANGOLIN');
    const local = await request(codec.port, withToken, { headers: { host: `localhost:${codec.port}` }, body });
    expect(local.status).toBe(200);
    const foreign = await request(codec.port, withToken, { headers: { origin: 'http://attacker.example' }, body });
    expect(foreign.status).toBe(403);
    const preflight = await request(codec.port, '/decode', {
      method: 'OPTIONS',
      headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
  });

  it('serves /encode only with --allow-encode', async () => {
    const plain = JSON.stringify({ payloads: [{ metadata: {}, data: Buffer.from('x').toString('base64') }] });
    expect((await request(codec.port, `/t/${codec.token}/encode`, { body: plain })).status).toBe(404);
    const encoding = await startCodec(['--allow-encode']);
    const encoded = await request(encoding.port, `/t/${encoding.token}/encode`, { body: plain });
    expect(encoded.status).toBe(200);
    expect(encoded.body).toContain(Buffer.from('binary/encrypted').toString('base64'));
  });

  it('refuses a body over the cap with 413, before reading it', async () => {
    const headers = { authorization: `Bearer ${codec.token}`, 'content-length': String(5 * MB) };
    const declared = await request(codec.port, '/decode', { headers, body: ' '.repeat(5 * MB) });
    expect(declared.status).toBe(413);
    const streamed = await request(codec.port, '/decode', {
      headers: { authorization: `Bearer ${codec.token}` },
      body: { chunkedBytes: 5 * MB },
    });
    expect(streamed.status).toBe(413);
    expect(streamed.body).toBe(`{"error":"request body over ${4 * MB} bytes"}\n`);
  });

  it('answers 503 at once past its concurrency cap, and serves the held requests after', async () => {
    const held = body.padEnd(body.length + 100);
    const slow = Array.from({ length: 4 }, () => {
      const outgoing = http.request({
        host: '127.0.0.1',
        port: codec.port,
        path: `/t/${codec.token}/decode`,
        method: 'POST',
        headers: { 'content-length': String(Buffer.byteLength(held)) },
      });
      outgoing.write(held.slice(0, 10));
      const reply = new Promise<number>((resolve) => outgoing.on('response', (r) => resolve(r.statusCode ?? 0)));
      return { outgoing, reply };
    });
    // Until the four held requests have reached the server, a fifth may still be served.
    const busy = await waitFor(
      () => request(codec.port, `/t/${codec.token}/decode`, { body }),
      (reply) => reply.status === 503,
      { timeoutMs: 5000, what: 'the held requests to fill the cap' },
    );
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    for (const { outgoing } of slow) outgoing.end(held.slice(10));
    expect(await Promise.all(slow.map(({ reply }) => reply))).toEqual([200, 200, 200, 200]);
  });

  it('keeps its memory bounded under eight concurrent 15 MB bodies', async () => {
    const fresh = await startCodec();
    const before = peakRss(fresh.child.pid as number);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        request(fresh.port, `/t/${fresh.token}/decode`, {
          // Half declare their length, half stream it: both are refused whole or past the cap.
          ...(index % 2 === 0 && { headers: { 'content-length': String(15 * MB) } }),
          body: index % 2 === 0 ? ' '.repeat(15 * MB) : { chunkedBytes: 15 * MB },
        }),
      ),
    );
    for (const reply of replies) expect([413, 503]).toContain(reply.status);
    const peak = peakRss(fresh.child.pid as number);
    expect(peak).toBeLessThan(250 * MB);
    expect(peak - before).toBeLessThan(120 * MB);
    const after = await request(fresh.port, `/t/${fresh.token}/decode`, { body });
    expect(decodedText(after)).toContain(SECRET);
  }, 60_000);

  it('refuses a non-loopback address without a token given explicitly, and a short token', async () => {
    const place = { home, taskQueue: 'unused', env: { SCRATCHPAD_ENCRYPTION_KEYS: keyEnv } };
    const open = await runCli(['codec-server', '--host', '0.0.0.0'], place);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('--host 0.0.0.0 is not a loopback address: give the token explicitly');
    const short = await runCli(['codec-server'], { ...place, env: { ...place.env, SCRATCHPAD_CODEC_TOKEN: 'abc' } });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('invalid codec token');
  });
});
