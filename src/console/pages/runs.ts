import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { BoardEntry } from '../../core/research/board';
import { isFactType } from '../../core/research/board-schema';
import { researchWorkflowId, stagedWorkflowId } from '../../common/ids';
import { type Html, html, segment } from '../html';
import type { StageRecord, StagedResult } from '../../core/staged/input';
import { NotFound } from '../errors';

async function described(client: Client, workflowId: string, what: string): Promise<WorkflowExecutionDescription> {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if ((error as Error)?.name === 'WorkflowNotFoundError') throw new NotFound(`no ${what} "${workflowId}"`);
    throw error;
  }
}

/** What a run's memo says of how it ended, readable with no worker: the outcome line and the details. */
function memoSummary(description: WorkflowExecutionDescription): Html {
  const memo = (description.memo ?? {}) as { outcome?: unknown; details?: unknown };
  return html`${typeof memo.outcome === 'string' ? html`<p><strong>${memo.outcome}</strong></p>` : ''}
  ${typeof memo.details === 'string' ? html`<pre>${memo.details}</pre>` : ''}`;
}

/** The newest entry of each entity/field fact: the board is append-only, so the last one says where a fact stands. */
function factRows(board: readonly BoardEntry[]): Html {
  const facts = new Map<string, BoardEntry>();
  for (const entry of board) {
    if (isFactType(entry.type)) {
      const body = entry.body as { entity: string; field: string };
      facts.set(`${body.entity}\n${body.field}`, entry);
    }
  }
  return html`${[...facts.values()].map((entry) => {
    const body = entry.body as Record<string, unknown>;
    const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : '');
    const value = text('value') || text('claimedValue');
    const url = text('sourceUrl') || text('url');
    const worker = text('retrievedBy') || text('triedBy') || text('assignedTo') || entry.author.id;
    const why = text('reason') || text('failureReason');
    const state = entry.type === 'VERIFIED' ? 'good' : entry.type === 'PENDING' ? '' : 'bad';
    return html`<tr>
      <td>${text('entity')} / ${text('field')}</td>
      <td><span class="badge ${state}">${entry.type}</span></td>
      <td>${value}</td>
      <td>${text('quote') || why}</td>
      <td>${url}</td>
      <td>${worker}</td>
    </tr>`;
  })}`;
}

function boardView(board: readonly BoardEntry[]): Html {
  const directives = board.filter((entry) => entry.type === 'USER_DIRECTIVE');
  const synthesis = board.filter((entry) => entry.type === 'SYNTHESIS').at(-1);
  const answer = synthesis?.body as { answer: string; citations: string[] } | undefined;
  return html`<h2>Facts</h2>
    <table>
      <tr>
        <th>Fact</th>
        <th>State</th>
        <th>Value</th>
        <th>Quote or reason</th>
        <th>URL</th>
        <th>Worker</th>
      </tr>
      ${factRows(board)}
    </table>
    <h2>Directives</h2>
    ${
      directives.length === 0
        ? html`<p class="muted">none</p>`
        : html`<ul>
            ${directives.map((entry) => html`<li>${(entry.body as { text: string }).text} <span class="muted">(${entry.author.id})</span></li>`)}
          </ul>`
    }
    <h2>Synthesis</h2>
    ${
      answer
        ? html`<pre>${answer.answer}</pre>
            <p class="muted">cites ${answer.citations.join(', ')}</p>`
        : html`<p class="muted">none yet</p>`
    }
    <details>
      <summary>Every entry (${board.length})</summary>
      <table>
        <tr>
          <th>Entry</th>
          <th>Type</th>
          <th>Author</th>
          <th>Turn</th>
          <th>Body</th>
        </tr>
        ${board.map(
          (entry) =>
            html`<tr>
              <td>${entry.id}</td>
              <td>${entry.type}</td>
              <td>${entry.author.role} ${entry.author.id}</td>
              <td>${entry.turn}</td>
              <td><pre>${JSON.stringify(entry.body, null, 1)}</pre></td>
            </tr>`,
        )}
      </table>
    </details>`;
}

/**
 * `/research/:run`: a closed run's board from its result (history: no worker needed); a running run's from its memo,
 * since the live board is a query only a worker answers.
 */
export async function researchPage(client: Client, runId: string): Promise<{ title: string; body: Html }> {
  const workflowId = researchWorkflowId(runId);
  const description = await described(client, workflowId, 'research run');
  const running = description.status.name === 'RUNNING';
  const result = running
    ? undefined
    : await client.workflow
        .getHandle(workflowId)
        .result()
        .catch(() => undefined);
  const board = (result as { board?: BoardEntry[] } | undefined)?.board;
  const body = html`<h1>Research run ${runId} <span class="badge">${description.status.name.toLowerCase()}</span></h1>
    ${board ? '' : memoSummary(description)}
    ${running ? html`<p class="muted">The run is still going: its live board is a query a worker answers (<code>scratchpad research board ${runId}</code>).</p>` : ''}
    ${board ? boardView(board) : ''}`;
  return { title: `Research ${runId}`, body };
}

function stagesTable(stages: readonly StageRecord[]): Html {
  return html`<table>
    <tr>
      <th>Stage</th>
      <th>Attempt</th>
      <th>Outcome</th>
      <th>Change</th>
      <th>Touched</th>
      <th>Refused</th>
    </tr>
    ${stages.map(
      (stage) =>
        html`<tr>
          <td>${stage.stage}</td>
          <td>${stage.kind}${stage.corrections ? ` (${stage.corrections} corrections)` : ''}</td>
          <td>${stage.outcome}</td>
          <td>${stage.change ?? ''}</td>
          <td>${stage.touchedPaths.join(', ')}</td>
          <td>${stage.refusedPaths.join(', ')}</td>
        </tr>`,
    )}
  </table>`;
}

/** `/staged/:agent/:n`: plan, stages, files and verification output of a staged run, from its result or memo. */
export async function stagedPage(client: Client, agentId: string, n: number): Promise<{ title: string; body: Html }> {
  const workflowId = stagedWorkflowId(agentId, n);
  const description = await described(client, workflowId, 'staged run');
  const result =
    description.status.name === 'COMPLETED'
      ? ((await client.workflow.getHandle(workflowId).result()) as StagedResult)
      : undefined;
  const body = html`<h1>
      Staged run ${n} of <a href="/agents/${segment(agentId)}">${agentId}</a>
      <span class="badge">${result?.outcome ?? description.status.name.toLowerCase()}</span>
    </h1>
    ${result ? '' : memoSummary(description)}
    ${
      result
        ? html`<p>${result.reason}</p>
            <h2>Plan</h2>
            <ol>
              ${result.plan.map((step) => html`<li>${step}</li>`)}
            </ol>
            <h2>Stages</h2>
            ${stagesTable(result.stages)}
            <h2>Files</h2>
            <ul>
              ${result.files.map((file) => html`<li>${file}</li>`)}
            </ul>
            <h2>Verification</h2>
            ${result.verifications.map(
              (check) =>
                html`<div class="section">
                  <strong>${check.command ?? ''}</strong>
                  <span class="badge ${check.passed ? 'good' : 'bad'}">${check.passed ? 'passed' : 'failed'}</span>
                  <pre>${check.output ?? ''}</pre>
                </div>`,
            )}`
        : ''
    }`;
  return { title: `Staged ${agentId} ${n}`, body };
}
