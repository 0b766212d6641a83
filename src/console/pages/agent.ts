import type { Client } from '@temporalio/client';
import { agentMemory, readAgent } from '../../clients/agent-overview';
import { renderMarkdown } from '../../core/scratchpad/render';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { UPDATE_KEYS } from '../../core/scratchpad/scratchpad';
import { type Html, form, html, segment } from '../html';
import { cyclePage } from '../listing';
import { agentState, usd } from './agents';
import { NotFound } from '../errors';
import { withArchiveLinks } from './archive';
import { requireReadable } from '../encrypted';
import { agentWorkflowId } from '../../common/ids';

/** The scratchpad as it reads in a prompt, one box per section. */
export function scratchpadSections(agentId: string, state: Scratchpad): Html {
  const sections = renderMarkdown(state).trim().split('\n\n---\n\n');
  return html`${sections.map((section) => html`<div class="section"><pre>${withArchiveLinks(agentId, section)}</pre></div>`)}`;
}

function settingsTable(settings: Record<string, unknown>): Html {
  const rows = Object.entries(settings).map(
    ([key, value]) =>
      html`<tr>
        <th>${key}</th>
        <td>${typeof value === 'string' ? value : JSON.stringify(value)}</td>
      </tr>`,
  );
  return html`<table>
    ${rows}
  </table>`;
}

function actions(agentId: string, csrf: string): Html {
  const base = `/agents/${segment(agentId)}`;
  const sections = html`<select name="section">
    ${UPDATE_KEYS.map((key) => html`<option>${key}</option>`)}
  </select>`;
  return html`<h2>Talk to it</h2>
    ${form(`${base}/send`, csrf, html`<textarea name="message" required placeholder="message"></textarea>`, 'Send')}
    ${form(`${base}/directive`, csrf, html`<input type="text" name="text" required size="60" placeholder="directive for the running cycle" /> `, 'Send directive')}
    <h2>Edit a section</h2>
    ${form(`${base}/inject`, csrf, html`${sections}<textarea name="content" placeholder="the section's new content"></textarea>`, 'Set section')}
    <h2>Time travel</h2>
    ${form(
      `${base}/fork`,
      csrf,
      html`Fork at cycle <input type="text" name="cycle" size="5" required /> as
        <input type="text" name="as" size="20" required />
        <label><input type="checkbox" name="confirm" value="yes" required /> I mean it</label> `,
      'Fork',
    )}
    ${form(
      `${base}/rewind`,
      csrf,
      html`Rewind to after cycle <input type="text" name="cycle" size="5" required />
        <label><input type="checkbox" name="confirm" value="yes" required /> I mean it</label> `,
      'Rewind',
    )}`;
}

/** `/agents/:id`: the memory by section, settings, held directives and notices, the timeline, and what to do. */
export async function agentPage(
  client: Client,
  agentId: string,
  url: URL,
  csrf: string,
): Promise<{ title: string; body: Html }> {
  await requireReadable(client, agentWorkflowId(agentId), `agent "${agentId}"`);
  const agent = await readAgent(client, agentId);
  if (!agent) throw new NotFound(`no agent "${agentId}"`);
  const token = url.searchParams.get('page') ?? undefined;
  const [memory, page] = await Promise.all([agentMemory(client, agent), cyclePage(client, agentId, token)]);
  const status = agent.memo.status;
  const base = `/agents/${segment(agentId)}`;
  const rows = page.rows.map(
    (row) =>
      html`<tr>
        <td><a href="${base}/cycles/${row.n}">${row.n}</a></td>
        <td>${row.status.toLowerCase()}</td>
        <td>${row.outcome ?? ''}</td>
        <td>${row.summary ?? ''}</td>
        <td>${row.start.toISOString().replace('T', ' ').slice(0, 19)}</td>
      </tr>`,
  );
  const held = status?.heldDirectives ?? [];
  const notices = status?.notices ?? [];
  const body = html`<h1>Agent ${agentId} <span class="badge">${agentState(agent)}</span></h1>
    <p>
      ${agent.cycleCount} cycles ·
      ${status ? (status.usage.inputTokens + status.usage.outputTokens).toLocaleString('en') : '—'} tokens ·
      ${usd(status?.costUsd)} · task queue ${agent.taskQueue}
    </p>
    ${agent.approvals.length > 0 ? html`<p class="warn">${agent.approvals.length} call(s) wait for a decision: <a href="/approvals">Approvals</a></p>` : ''}
    <h2>Memory</h2>
    ${scratchpadSections(agentId, memory.scratchpad)}
    <h2>Held directives</h2>
    ${
      held.length === 0
        ? html`<p class="muted">none</p>`
        : html`<ul>
            ${held.map((text) => html`<li>${text}</li>`)}
          </ul>`
    }
    <h2>Notices</h2>
    ${
      notices.length === 0
        ? html`<p class="muted">none</p>`
        : html`<ul>
            ${notices.map((text) => html`<li>${text}</li>`)}
          </ul>`
    }
    <h2>Cycles</h2>
    <table>
      <tr>
        <th>#</th>
        <th>Status</th>
        <th>Outcome</th>
        <th>Memory change</th>
        <th>Started (UTC)</th>
      </tr>
      ${rows}
    </table>
    <nav class="pager">
      ${token ? html`<a href="${base}">Newest</a>` : ''}${page.next ? html`<a href="${base}?page=${page.next}">Older</a>` : ''}
    </nav>
    ${actions(agentId, csrf)}
    <h2>Settings</h2>
    ${settingsTable(memory.settings as unknown as Record<string, unknown>)}`;
  return { title: `Agent ${agentId}`, body };
}
