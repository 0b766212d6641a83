import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import { errorMessage } from '../common/error-message';
import { followTurn } from './turn-stream';

/** How often a quiet stream sends a comment line, so that proxies keep the connection open. */
const KEEP_ALIVE_MS = 15_000;

/** The offset to resume from: after the `Last-Event-ID` a reconnecting `EventSource` sends, else `?from=N`, else 0. */
function resumeOffset(request: IncomingMessage): number {
  const last = Number(request.headers['last-event-id']);
  if (Number.isSafeInteger(last) && last >= 0) return last + 1;
  const from = Number(new URL(request.url ?? '/', 'http://localhost').searchParams.get('from'));
  return Number.isSafeInteger(from) && from >= 0 ? from : 0;
}

/**
 * Relays the stream of the chat turn `cycleId` as Server-Sent Events, for a web app to hand its browser
 * (design.md, Streaming): each event's `id` is its offset and its `event` its type, with the event as JSON for data;
 * a browser's `EventSource` that reconnects sends the last id and gets what follows, nothing twice. The response ends
 * with the turn's last event, and the following stops when the browser goes away. Put it behind your own
 * authentication: it answers for any turn it is asked about.
 *
 * ```ts
 * http.createServer((request, response) => relayTurn(client, cycleIdOf(request), request, response));
 * ```
 */
export async function relayTurn(
  client: Client,
  cycleId: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const gone = new AbortController();
  request.on('close', () => gone.abort());
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  try {
    for await (const event of followTurn(client, cycleId, { from: resumeOffset(request), signal: gone.signal })) {
      response.write(`id: ${event.offset}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    }
  } catch (error) {
    // Not one of the turn's own events: no id, so a reconnect asks again from where it was.
    if (!gone.signal.aborted)
      response.write(`event: failure\ndata: ${JSON.stringify({ message: errorMessage(error) })}\n\n`);
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}
