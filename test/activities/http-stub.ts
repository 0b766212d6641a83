import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless already a string. */
  body?: unknown;
  delayMs?: number;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** A local HTTP server answering queued replies in order and recording what it received. */
export interface HttpStub {
  url: string;
  received: ReceivedRequest[];
  reply(...replies: StubReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startHttpStub(): Promise<HttpStub> {
  const received: ReceivedRequest[] = [];
  const queue: StubReply[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // A server's self-description (llama.cpp /props, vLLM /v1/models, Ollama /api/show) is not one of the calls a
      // test queues replies for: the stand-in says nothing about itself, as a hosted API does. Any other path (a page
      // web_fetch reads) is answered from the queue.
      if (/\/(props|models|api\/show)$/.test((request.url ?? '').split('?')[0] ?? '')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{}');
        return;
      }
      const text = Buffer.concat(chunks).toString('utf-8');
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      });
      const reply = queue.shift() ?? { status: 500, body: { error: { message: 'http stub: no reply queued' } } };
      const send = () => {
        if (response.destroyed) return;
        const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
        response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        response.end(body);
      };
      if (!reply.delayMs) return send();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    reply: (...replies) => queue.push(...replies),
    reset: () => {
      timers.forEach(clearTimeout);
      timers.clear();
      received.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach(clearTimeout);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
