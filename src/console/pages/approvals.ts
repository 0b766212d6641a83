import type { Client } from '@temporalio/client';
import { Approvals, type PendingCall } from '../../clients/approvals';
import { type Html, form, html, segment } from '../html';

function callRow(call: PendingCall, csrf: string): Html {
  const hidden = html`<input type="hidden" name="target" value="${call.target}" />
    <input type="hidden" name="callId" value="${call.callId}" />`;
  const who = call.agentId ? html`<a href="/agents/${segment(call.agentId)}">${call.agentId}</a>` : call.target;
  return html`<tr>
    <td>
      ${who}
      <div class="muted">${call.cycleId}</div>
      ${call.context ? html`<div>${call.context}</div>` : ''}
    </td>
    <td>${call.tool}</td>
    <td><pre>${call.args}</pre></td>
    <td>
      ${call.requestedAt}
      <div class="muted">ends as a denial ${call.expiresAt}</div>
    </td>
    <td>
      ${form('/approvals/decide', csrf, html`${hidden}<input type="hidden" name="decision" value="approve" />`, 'Approve', 'inline')}
      <details>
        <summary>Edit</summary>
        ${form(
          '/approvals/decide',
          csrf,
          html`${hidden}<input type="hidden" name="decision" value="approve" /><textarea name="args">
${call.args}</textarea>`,
          'Approve with these arguments',
        )}
      </details>
      ${form(
        '/approvals/decide',
        csrf,
        html`${hidden}<input type="hidden" name="decision" value="deny" />
          <input type="text" name="reason" required placeholder="why (the model sees it)" /> `,
        'Deny',
      )}
    </td>
  </tr>`;
}

/** `/approvals`: every call that waits for a person, across agents, research workers and stages. */
export async function approvalsPage(client: Client, url: URL, csrf: string): Promise<{ title: string; body: Html }> {
  // Visibility lists a decided call until the workflow's memo catches up: the one just decided is left out.
  const decided = url.searchParams.get('decided');
  const calls = (await new Approvals(client).list()).filter((call) => call.callId !== decided);
  const body = html`<h1>Approvals</h1>
    ${decided ? html`<p class="good">Decision sent for call ${decided}.</p>` : ''}
    ${
      calls.length === 0
        ? html`<p class="muted">No call waits for a decision.</p>`
        : html`<table>
            <tr>
              <th>Who</th>
              <th>Tool</th>
              <th>Arguments</th>
              <th>Since</th>
              <th>Decide</th>
            </tr>
            ${calls.map((call) => callRow(call, csrf))}
          </table>`
    }`;
  return { title: 'Approvals', body };
}
