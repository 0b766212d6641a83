import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Bodies the Web UI sends and expects: Temporal's codec-server protocol, payloads in proto3 JSON (bytes base64). */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** Request bodies larger than this are refused: the UI sends a page of payloads at a time, each at most 2 MB. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

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

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parsePayloads(body: string): Payload[] {
  const parsed = JSON.parse(body) as { payloads?: unknown };
  if (!Array.isArray(parsed.payloads)) throw new Error('expected {"payloads": [...]}');
  return (parsed.payloads as JsonPayload[]).map(fromJson);
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The one origin browsers may call from: the Web UI's. */
  origin: string;
  port?: number;
  host?: string;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `POST /encode` and `POST /decode` for the Temporal Web UI (and `temporal --codec-endpoint`), so the UI shows
 * encrypted payloads decoded while the server only ever holds ciphertext. CORS admits the configured origin only.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const server = http.createServer((request, response) => {
    const cors = {
      'access-control-allow-origin': options.origin,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'content-type, x-namespace, authorization',
      'access-control-allow-credentials': 'true',
      vary: 'origin',
    };
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { ...cors, 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors);
      response.end();
      return;
    }
    const operation = request.url?.split('?')[0];
    if (request.method !== 'POST' || (operation !== '/encode' && operation !== '/decode')) {
      send(404, { error: 'POST /encode or /decode' });
      return;
    }
    readBody(request)
      .then(async (body) => {
        let payloads: Payload[];
        try {
          payloads = parsePayloads(body);
        } catch (error) {
          send(400, { error: `bad request: ${(error as Error).message}` });
          return;
        }
        const result =
          operation === '/encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
        send(200, { payloads: result.map(toJson) });
      })
      .catch((error: Error) => send(422, { error: error.message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
