import type { ObservationStore } from '../../activities/observations/entry';
import { type Html, html, segment } from '../html';
import { NotFound } from '../errors';

const POINTER = /\[ARCHIVED (\d+) older chars: scratchpad_read\(scratchpad_id="([0-9a-f]{16})"\)\]/g;

/** Section text with each archive pointer a link to the text it stands for. */
export function withArchiveLinks(agentId: string, text: string): Html {
  const parts: (string | Html)[] = [];
  let last = 0;
  for (const match of text.matchAll(POINTER)) {
    parts.push(text.slice(last, match.index));
    const href = `/agents/${segment(agentId)}/archive/${match[2]}`;
    parts.push(html`<a href="${href}">${match[0]}</a>`);
    last = (match.index ?? 0) + match[0].length;
  }
  parts.push(text.slice(last));
  return html`${parts}`;
}

/**
 * `/agents/:id/archive/:entry`: text the budget moved out of the agent's memory, from the observation store the
 * workers share (the console opens the one the configuration names). Only the agent's own archives are shown.
 */
export async function archivePage(
  store: ObservationStore | undefined,
  agentId: string,
  entryId: string,
): Promise<{ title: string; body: Html }> {
  if (!store) throw new NotFound('this console has no observation store to read archives from');
  const entry = await store.info(entryId);
  if (!entry || entry.agentId !== agentId) {
    throw new NotFound(`no archive ${entryId} of agent "${agentId}" in the observation store this console reads`);
  }
  const content = await store.content(entry);
  const body = html`<h1>Archived from <a href="/agents/${segment(agentId)}">${agentId}</a></h1>
    <p class="muted">
      entry ${entryId}, ${entry.sizeBytes} bytes, archived by ${entry.turnId} at
      ${new Date(entry.createdAt).toISOString()}
    </p>
    ${typeof content === 'string' ? html`<pre>${content}</pre>` : html`<p>binary content, not shown</p>`}`;
  return { title: `Archive ${entryId}`, body };
}
