import type { ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import { followTurn, unshownReply } from '../../clients/turn-stream';
import type { TurnEvent } from '../../core/cycle/turn-stream';
import { cycleWorkflowId } from '../../common/ids';
import { errorMessage } from '../../common/error-message';
import { type Html, escapeHtml, html, layoutParts, segment } from '../html';

const OPEN_REPLY = '<pre class="reply">';

/** The markup of an event that is not text: a tool call, a restart, the turn's end. */
function eventMarkup(event: Exclude<TurnEvent, { type: 'text' }>, cyclePage: string): Html {
  if (event.type === 'tool') {
    const shown =
      event.phase === 'start'
        ? `→ ${event.name} ${event.args ?? ''}`
        : `← ${event.name} ${event.ok === false ? 'failed' : 'done'}`;
    return html`<p class="muted">${shown}</p>`;
  }
  if (event.type === 'restart') {
    return html`<p class="warn">The model call was tried again (attempt ${event.attempt}): the reply starts over.</p>`;
  }
  const end =
    event.type === 'done'
      ? `Reply ${event.outcome === 'completed' ? 'ended' : `ended: ${event.outcome}`}; reflect runs after.`
      : event.type === 'error'
        ? `The turn failed: ${event.message}`
        : 'The turn was cancelled.';
  return html`<p class="${event.type === 'done' ? '' : 'bad'}">${end} <a href="${cyclePage}">The cycle's page</a></p>`;
}

/**
 * A chat turn's reply as the model writes it (design.md, Streaming): the page goes out in pieces as the turn's stream
 * brings them, so a browser shows the words as they come, with no script. The `done` event's reply is the record:
 * what the stream did not bring of it is shown then.
 */
export async function streamTurnPage(
  client: Client,
  agentId: string,
  n: number,
  response: ServerResponse,
  headers: Record<string, string>,
): Promise<void> {
  const [open, close] = layoutParts(`${agentId} · turn ${n}`);
  const agentPage = `/agents/${segment(agentId)}`;
  const cyclePage = `${agentPage}/cycles/${n}`;
  response.writeHead(200, headers);
  response.write(open);
  // The reply's <pre> stays open while text comes: written apart from the templates, which a formatter would close.
  response.write(html`<h1><a href="${agentPage}">${agentId}</a> · turn ${n}</h1>`.text);
  response.write(OPEN_REPLY);
  const gone = new AbortController();
  response.on('close', () => gone.abort());
  let segmentText = '';
  try {
    for await (const event of followTurn(client, cycleWorkflowId(agentId, n), { signal: gone.signal })) {
      if (event.type === 'text') {
        segmentText += event.text;
        response.write(escapeHtml(event.text));
        continue;
      }
      if (event.type === 'done') {
        response.write(escapeHtml(unshownReply(segmentText, event.reply)));
      }
      response.write(`</pre>${eventMarkup(event, cyclePage).text}`);
      if (event.type === 'tool' || event.type === 'restart') response.write(OPEN_REPLY);
      segmentText = '';
    }
  } catch (error) {
    if (!gone.signal.aborted) response.write(`</pre>${html`<p class="bad">${errorMessage(error)}</p>`.text}`);
  }
  response.end(close);
}
