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
      const streamed = (received.at(-1)?.body as { stream?: boolean } | undefined)?.stream === true;
      const send = () => {
        if (response.destroyed) return;
        if (streamed && isCompletion(reply)) {
          response.writeHead(200, { 'content-type': 'text/event-stream', ...reply.headers });
          for (const chunk of completionChunks(reply.body)) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
          response.end('data: [DONE]\n\n');
          return;
        }
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

interface Completion {
  id?: string;
  model?: string;
  created?: number;
  usage?: unknown;
  choices: {
    message?: { content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
    finish_reason?: string | null;
  }[];
}

/** A successful chat completion, which a streamed request gets as chunks, as a server streams it. */
function isCompletion(reply: StubReply): reply is StubReply & { body: Completion } {
  const body = reply.body as { choices?: unknown } | undefined;
  return (reply.status ?? 200) === 200 && typeof body === 'object' && body !== null && Array.isArray(body.choices);
}

/**
 * The chunks a server streams for `completion`: the role, the text in pieces of 8 characters, each tool call's name
 * and then its arguments in pieces, the finish reason, and the usage in a last chunk with no choices.
 */
function completionChunks(completion: Completion): object[] {
  const head = {
    id: completion.id ?? 'stub',
    object: 'chat.completion.chunk',
    created: 0,
    model: completion.model ?? 'stub',
  };
  const choice = completion.choices[0];
  const chunk = (delta: object, finish: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: object[] = [chunk({ role: 'assistant' })];
  const text = choice?.message?.content;
  for (let at = 0; typeof text === 'string' && at < text.length; at += 8)
    chunks.push(chunk({ content: text.slice(at, at + 8) }));
  choice?.message?.tool_calls?.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    for (let at = 0; at < call.function.arguments.length; at += 8) {
      chunks.push(
        chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(at, at + 8) } }] }),
      );
    }
  });
  chunks.push(chunk({}, choice?.finish_reason ?? 'stop'));
  if (completion.usage) chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}
