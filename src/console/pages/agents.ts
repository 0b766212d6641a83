import type { Client } from '@temporalio/client';
import { type AgentOverview, listAgents } from '../../clients/agent-overview';
import { renderMarkdown } from '../../core/scratchpad/render';
import { listExecutions } from '../../clients/visibility';
import { ResearchRuns } from '../../clients/research-runs';
import { type Html, html, segment } from '../html';

/** What a person sees first: idle, running, awaiting approval, or how the agent's workflow closed. */
export function agentState(agent: AgentOverview): string {
  if (agent.approvals.length > 0) return 'awaiting approval';
  if (agent.state !== 'RUNNING') return agent.state.toLowerCase();
  return agent.running.length > 0 ? 'running' : 'idle';
}

export function usd(cost: number | null | undefined): string {
  return cost === null || cost === undefined ? '—' : `$${cost.toFixed(cost < 0.01 ? 4 : 2)}`;
}

function memorySize(agent: AgentOverview): string {
  const { scratchpad, status } = agent.memo;
  if (!scratchpad) return '—';
  const chars = renderMarkdown(scratchpad).length;
  const budget = status?.settings.budgetChars;
  return budget ? `${chars.toLocaleString('en')} / ${budget.toLocaleString('en')}` : chars.toLocaleString('en');
}

function agentRow(agent: AgentOverview): Html {
  const usage = agent.memo.status?.usage;
  const tokens = usage ? (usage.inputTokens + usage.outputTokens).toLocaleString('en') : '—';
  const state = agentState(agent);
  const badge = state === 'awaiting approval' ? 'warn' : state === 'running' ? 'good' : '';
  return html`<tr>
    <td><a href="/agents/${segment(agent.agentId)}">${agent.agentId}</a></td>
    <td><span class="badge ${badge}">${state}</span></td>
    <td>${agent.cycleCount}</td>
    <td>${agent.lastOutcome ?? '—'}</td>
    <td>${memorySize(agent)}</td>
    <td>${tokens}</td>
    <td>${usd(agent.memo.status?.costUsd)}</td>
    <td>${agent.lastActive.toISOString().replace('T', ' ').slice(0, 19)}</td>
  </tr>`;
}

/** `/`: every agent, filtered by a search and a state, with research runs and staged runs beside. */
export async function agentsPage(client: Client, url: URL): Promise<{ title: string; body: Html }> {
  const search = (url.searchParams.get('q') ?? '').trim().toLowerCase();
  const wanted = url.searchParams.get('state') ?? '';
  const [agents, research, staged] = await Promise.all([
    listAgents(client),
    collect(new ResearchRuns(client).list()),
    listExecutions(client, `WorkflowType = 'stagedTask'`),
  ]);
  const shown = agents.filter(
    (agent) => agent.agentId.toLowerCase().includes(search) && (wanted === '' || agentState(agent) === wanted),
  );
  const states = ['', 'idle', 'running', 'awaiting approval', 'completed', 'terminated', 'failed'];
  const body = html`<h1>Agents</h1>
    <form method="get" action="/">
      <input type="text" name="q" value="${search}" placeholder="agent id" />
      <select name="state">
        ${states.map(
          (state) =>
            html`<option value="${state}" ${state === wanted ? 'selected' : ''}>${state || 'any state'}</option>`,
        )}
      </select>
      <button type="submit">Filter</button>
    </form>
    <p class="muted">${shown.length} of ${agents.length} agents</p>
    <table>
      <tr>
        <th>Agent</th>
        <th>State</th>
        <th>Cycles</th>
        <th>Last outcome</th>
        <th>Memory (chars / budget)</th>
        <th>Tokens</th>
        <th>Cost</th>
        <th>Last active (UTC)</th>
      </tr>
      ${shown.map(agentRow)}
    </table>
    <h2>Research runs</h2>
    ${
      research.length === 0
        ? html`<p class="muted">none</p>`
        : html`<table>
            <tr>
              <th>Run</th>
              <th>Status</th>
              <th>Outcome</th>
              <th>Started</th>
            </tr>
            ${research.map(
              (run) =>
                html`<tr>
                  <td><a href="/research/${segment(run.runId)}">${run.runId}</a></td>
                  <td>${run.status.toLowerCase()}</td>
                  <td>${run.outcome || '—'}</td>
                  <td>${run.startTime.toISOString()}</td>
                </tr>`,
            )}
          </table>`
    }
    <h2>Staged runs</h2>
    ${
      staged.length === 0
        ? html`<p class="muted">none</p>`
        : html`<table>
            <tr>
              <th>Run</th>
              <th>Status</th>
              <th>Started</th>
            </tr>
            ${staged.map((run) => {
              const [, agentId, n] = run.workflowId.split('/');
              return html`<tr>
                <td><a href="/staged/${segment(agentId ?? '')}/${segment(n ?? '')}">${run.workflowId}</a></td>
                <td>${run.status.name.toLowerCase()}</td>
                <td>${run.startTime.toISOString()}</td>
              </tr>`;
            })}
          </table>`
    }`;
  return { title: 'Agents', body };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
