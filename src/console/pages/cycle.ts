import type { Client } from '@temporalio/client';
import { cycleWorkflowId } from '../../common/ids';
import {
  type AttributedChange,
  type CycleDetail,
  type ModelCallView,
  type ToolCallView,
  readCycleDetail,
} from '../cycle-detail';
import { type Html, html, segment } from '../html';
import { usd } from './agents';
import { NotFound } from '../errors';
import { LOCKED_MESSAGE } from '../encrypted';

function json(value: unknown): string {
  return JSON.stringify(value ?? {}, null, 2) ?? '';
}

function modelRow(call: ModelCallView): Html {
  const usage = call.usage;
  return html`<tr id="call-${call.n}">
    <td>model ${call.n}</td>
    <td>${call.phase}</td>
    <td>${call.model ?? ''}</td>
    <td>${usage ? `${usage.inputTokens} in / ${usage.outputTokens} out` : ''}</td>
    <td>${usage?.cacheReadTokens ?? ''}</td>
    <td>${usd(call.cost)}</td>
    <td>${call.ms !== undefined ? `${(call.ms / 1000).toFixed(2)} s` : 'running'}</td>
    <td>
      ${call.error ? html`<span class="bad">${call.error}</span>` : ''}${call.calls.map(
        (tool) =>
          html`<details>
            <summary>${tool.name}</summary>
            <pre>${json(tool.args)}</pre>
          </details>`,
      )}${
        call.text
          ? html`<details>
              <summary>text</summary>
              <pre>${call.text}</pre>
            </details>`
          : ''
      }
    </td>
  </tr>`;
}

function toolRow(call: ToolCallView): Html {
  const state = call.error ? html`<span class="badge bad">error</span>` : call.ok === undefined ? 'running' : 'ok';
  return html`<tr>
    <td>tool</td>
    <td>${call.name}</td>
    <td colspan="4">asked by model ${call.by}</td>
    <td>${call.ms !== undefined ? `${(call.ms / 1000).toFixed(2)} s` : ''}</td>
    <td>
      ${state} ${call.error ?? ''}
      <details>
        <summary>arguments</summary>
        <pre>${json(call.args)}</pre>
      </details>
      ${
        call.excerpt
          ? html`<details>
              <summary>result</summary>
              <pre>${call.excerpt}</pre>
            </details>`
          : ''
      }
    </td>
  </tr>`;
}

function changesBySection(changes: readonly AttributedChange[]): Html {
  if (changes.length === 0) return html`<p class="muted">the memory did not change</p>`;
  const groups = new Map<string, AttributedChange[]>();
  for (const change of changes) {
    const key = change.part ? `${change.section} / ${change.part}` : change.section;
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  return html`${[...groups].map(
    ([key, lines]) =>
      html`<div class="section">
        <strong>${key}</strong>${lines.map(
          (line) =>
            html`<div class="${line.op === '+' ? 'add' : 'del'}">
              <span class="muted">[${line.by}]</span> ${line.op} ${line.text}
            </div>`,
        )}
      </div>`,
  )}`;
}

/** What the budget archived and what people decided on the calls that waited. */
function afterTheLoop(result: CycleDetail['result']): Html {
  const archived = (result?.archived ?? []).map((cut) => `${cut.chars} characters of ${cut.section} (${cut.id})`);
  const decisions = result?.decisions ?? [];
  return html`${archived.length > 0 ? html`<p class="muted">The budget archived ${archived.join(', ')}.</p>` : ''}
  ${
    decisions.length > 0
      ? html`<h2>Decisions</h2>
          <ul>
            ${decisions.map(
              (decision) =>
                html`<li>
                  ${decision.tool} (call ${decision.callId}): <strong>${decision.decision}</strong> by ${decision.by} at
                  ${decision.at}${decision.reason ? ` — ${decision.reason}` : ''}
                </li>`,
            )}
          </ul>`
      : ''
  }`;
}

function incoming(detail: CycleDetail): Html {
  const input = detail.input as (CycleDetail['input'] & { message?: string; kind?: string }) | undefined;
  if (!input) return html`<p class="muted">the input could not be read</p>`;
  const task = input.before.current_task;
  return html`<p>${input.kind ?? 'task'} cycle${input.trigger ? `, trigger ${input.trigger}` : ''}</p>
    ${
      input.message !== undefined
        ? html`<h3>Message</h3>
            <pre>${input.message}</pre>`
        : ''
    }
    ${
      task
        ? html`<h3>Task</h3>
            <pre>${task}</pre>`
        : ''
    }
    ${
      [...input.directives, ...detail.directives].length > 0
        ? html`<h3>Directives</h3>
            <ul>
              ${[...input.directives, ...detail.directives].map((text) => html`<li>${text}</li>`)}
            </ul>`
        : ''
    }`;
}

/** `/agents/:id/cycles/:n`: what came in, the reply, every call, and the memory change tied to the call that made it. */
export async function cyclePage(
  client: Client,
  agentId: string,
  n: number,
  webUi: (workflowId: string) => string | undefined,
): Promise<{ title: string; body: Html }> {
  const workflowId = cycleWorkflowId(agentId, n);
  const detail = await readCycleDetail(client, workflowId).catch((error: unknown) => {
    if ((error as Error)?.name === 'WorkflowNotFoundError') throw new NotFound(`no cycle ${n} of agent "${agentId}"`);
    throw error;
  });
  const base = `/agents/${segment(agentId)}`;
  const link = webUi(workflowId);
  const result = detail.result;
  const body = html`<h1>
      <a href="${base}">${agentId}</a> · cycle ${n} <span class="badge">${result?.outcome ?? detail.status}</span>
    </h1>
    <nav class="pager">
      ${n > 1 ? html`<a href="${base}/cycles/${n - 1}">← cycle ${n - 1}</a>` : ''}<a href="${base}/cycles/${n + 1}"
        >cycle ${n + 1} →</a
      >
      ${link ? html`<a href="${link}">Temporal Web UI</a>` : ''}
    </nav>
    ${detail.undecoded ? html`<p class="warn">Some payloads of this cycle are ${LOCKED_MESSAGE}.</p>` : ''}
    ${detail.error || result?.error ? html`<p class="bad">${detail.error ?? result?.error}</p>` : ''}
    <h2>What came in</h2>
    ${incoming(detail)}
    ${
      result?.reply !== undefined
        ? html`<h2>Reply</h2>
            <pre>${result.reply}</pre>`
        : ''
    }
    ${result?.memoryUnchanged ? html`<p class="warn">memory not updated: ${result.memoryUnchanged}</p>` : ''}
    <h2>Memory change</h2>
    ${changesBySection(detail.changes)} ${afterTheLoop(detail.result)}
    <h2>Calls</h2>
    <table>
      <tr>
        <th>Step</th>
        <th>Phase / tool</th>
        <th>Model</th>
        <th>Tokens</th>
        <th>Cache reads</th>
        <th>Cost</th>
        <th>Time</th>
        <th>Details</th>
      </tr>
      ${detail.steps.map((step) => (step.kind === 'model' ? modelRow(step) : toolRow(step)))}
    </table>`;
  return { title: `${agentId} cycle ${n}`, body };
}
