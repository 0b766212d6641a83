import { createHash, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Bodies the Web UI sends and expects: Temporal's codec-server protocol, payloads in proto3 JSON (bytes base64). */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** The UI posts one event's payloads at a time, each at most 2 MB: larger bodies are refused unread. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Requests decoded at once; more are refused at once, so memory stays near this many bodies. */
export const DEFAULT_MAX_CONCURRENT = 4;
/** The header a caller without a path token (curl, scripts) may carry the token in. */
export const TOKEN_HEADER = 'x-scratchpad-codec-token';
// A slow sender must not hold one of the few slots for long.
const REQUEST_TIMEOUT_MS = 30_000;
// How long a refused connection stays open, unread, before it is dropped.
const LINGER_MS = 2_000;

function fromJson(payload: JsonPayload): Payload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, new Uint8Array(Buffer.from(value, 'base64'))]),
  );
  return { metadata, data: new Uint8Array(Buffer.from(payload.data ?? '', 'base64')) };
}

function toJson(payload: Payload): JsonPayload {
  const base64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64');
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, base64(value)]),
  );
  return { metadata, data: base64(payload.data) };
}

function parsePayloads(body: string): Payload[] {
  const parsed = JSON.parse(body) as { payloads?: unknown };
  if (!Array.isArray(parsed.payloads)) throw new Error('expected {"payloads": [...]}');
  return (parsed.payloads as JsonPayload[]).map(fromJson);
}

/** The body, or undefined as soon as it passes `maxBytes` (the rest is never read). */
function readCapped(request: http.IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off('data', onData);
        request.pause();
        chunks.length = 0;
        resolve(undefined);
      } else chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * Answers on the bare socket and reads no more of the request: the connection ends after the answer. Closing a
 * socket with unread data sends a reset, which can overtake the answer, so the read side stays open (unread; the
 * sender's window closes) a moment first.
 */
function refuseUnread(request: http.IncomingMessage, status: number, headers: Record<string, string>, error: string) {
  request.pause();
  const text = `${JSON.stringify({ error })}\n`;
  const all = { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  const head = Object.entries({ ...all, connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
  const socket = request.socket;
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n${head.join('')}\r\n${text}`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped form. */
export function isLoopback(address: string): boolean {
  const bare = address.replace(/^::ffff:/i, '');
  return bare === '::1' || (net.isIPv4(bare) && bare.startsWith('127.'));
}

/** Host names a request may name: the bind address, `localhost` for loopback, every interface for a wildcard. */
function allowedHostNames(bind: string, extra: readonly string[]): Set<string> {
  const names = new Set([bind.toLowerCase(), ...extra.map((name) => name.toLowerCase())]);
  if (isLoopback(bind)) names.add('localhost');
  if (bind === '0.0.0.0' || bind === '::') {
    names.add('localhost').add(os.hostname().toLowerCase());
    for (const entry of Object.values(os.networkInterfaces()).flat()) if (entry) names.add(entry.address);
  }
  return names;
}

function hostNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The one origin browsers may call from: the Web UI's. */
  origin: string;
  /** Every request carries it: as `/t/<token>/decode`, in {@link TOKEN_HEADER}, or as `Authorization: Bearer`. */
  token: string;
  port?: number;
  /** The address to bind; 127.0.0.1 unless given. */
  host?: string;
  /** More names the `Host` header may carry (a reverse proxy's). */
  allowHosts?: readonly string[];
  /** Serve `/encode` too; off, it is a 404. */
  allowEncode?: boolean;
  maxBodyBytes?: number;
  maxConcurrent?: number;
}

export interface CodecServer {
  /** Where it listens, without the token. */
  url: string;
  close(): Promise<void>;
}

/**
 * `POST /decode` (and `/encode` when allowed) for the Temporal Web UI and `temporal --codec-endpoint`, so the UI
 * shows encrypted payloads decoded while the server only ever holds ciphertext. Not an open decryption oracle:
 * every request needs the token and a `Host` naming this server (DNS rebinding gets 421); browsers may call from the
 * UI's origin only; bodies and concurrent requests are capped, and what is refused is never read.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const bind = options.host ?? '127.0.0.1';
  const hostNames = allowedHostNames(bind, options.allowHosts ?? []);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxConcurrent = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  const expected = digest(options.token);
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const isToken = (candidate: string | undefined) =>
    candidate !== undefined && timingSafeEqual(digest(candidate), expected);
  let inFlight = 0;

  const handle = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const cors = {
      'access-control-allow-origin': options.origin,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': `content-type, x-namespace, authorization, ${TOKEN_HEADER}`,
      'access-control-allow-credentials': 'true',
      vary: 'origin',
    };
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { ...cors, 'content-type': 'application/json' });
      response.end(`${JSON.stringify(body)}\n`);
    };
    const refuse = (status: number, error: string, headers: Record<string, string> = {}) =>
      refuseUnread(request, status, { ...cors, ...headers }, error);

    if (!hostNames.has(hostNameOf(request.headers.host) ?? '')) {
      return refuse(421, `Host "${request.headers.host ?? ''}" is not this codec server's address`);
    }
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== options.origin) {
      return refuse(403, `origin ${origin} may not call this codec server (only ${options.origin})`);
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors);
      return void response.end();
    }
    const segments = (request.url ?? '').split('?')[0]!.split('/').filter(Boolean);
    const operation = segments.pop();
    const pathToken = segments.length === 2 && segments[0] === 't' ? decodeSegment(segments[1]!) : undefined;
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const header = request.headers[TOKEN_HEADER];
    if (![pathToken, bearer, typeof header === 'string' ? header : undefined].some(isToken)) {
      return refuse(401, 'a token is required: POST to <endpoint>/t/<token>/decode or send it in ' + TOKEN_HEADER);
    }
    const allowed = operation === 'decode' || (operation === 'encode' && options.allowEncode === true);
    if (request.method !== 'POST' || !allowed || (segments.length !== 0 && pathToken === undefined)) {
      return refuse(404, options.allowEncode ? 'POST /decode or /encode' : 'POST /decode');
    }
    if (inFlight >= maxConcurrent) {
      return refuse(503, `busy: ${maxConcurrent} requests already in progress; retry`, { 'retry-after': '1' });
    }
    const tooLarge = `request body over ${maxBody} bytes`;
    if (Number(request.headers['content-length'] ?? 0) > maxBody) return refuse(413, tooLarge);
    inFlight++;
    let holding = true;
    const release = () => {
      if (holding) inFlight--;
      holding = false;
    };
    response.once('close', release);
    if (/100-continue/i.test(request.headers.expect ?? '')) response.writeContinue();
    readCapped(request, maxBody)
      .then(async (body) => {
        if (body === undefined) {
          release();
          return refuse(413, tooLarge);
        }
        let payloads: Payload[];
        try {
          payloads = parsePayloads(body.toString('utf8'));
        } catch (error) {
          return send(400, { error: `bad request: ${(error as Error).message}` });
        }
        const result =
          operation === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
        send(200, { payloads: result.map(toJson) });
      })
      .catch((error: Error) => send(422, { error: error.message }));
  };
  const server = http.createServer({ requestTimeout: REQUEST_TIMEOUT_MS }, handle);
  // Handled, so that a refused body's sender is told before it sends (no automatic `100 Continue`).
  server.on('checkContinue', handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bind, resolve);
  });
  const { address, port } = server.address() as net.AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
