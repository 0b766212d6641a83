import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { parseCycleWorkflowId } from '../common/ids';
import { executionOf, visibilityString } from '../clients/visibility';

/** Cycles a page of an agent's timeline lists. */
export const CYCLES_PER_PAGE = 50;

/** One cycle as visibility lists it, with what its memo says: no request per cycle. */
export interface CycleRow {
  workflowId: string;
  runId: string;
  n: number;
  status: string;
  start: Date;
  close?: Date;
  outcome?: string;
  summary?: string;
}

/** One page of executions a visibility query lists, newest first, and the token of the next. */
export async function listPage(
  client: Client,
  query: string,
  pageToken: string | undefined,
  pageSize: number,
): Promise<{ executions: WorkflowExecutionInfo[]; next?: string }> {
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query,
    pageSize,
    ...(pageToken ? { nextPageToken: Buffer.from(pageToken, 'base64url') } : {}),
  });
  const executions: WorkflowExecutionInfo[] = [];
  for (const raw of response.executions ?? []) executions.push(await executionOf(client, raw));
  const token = response.nextPageToken;
  return { executions, ...(token && token.length > 0 && { next: Buffer.from(token).toString('base64url') }) };
}

/** One page of an agent's cycles, the newest first. */
export async function cyclePage(
  client: Client,
  agentId: string,
  pageToken?: string,
  pageSize = CYCLES_PER_PAGE,
): Promise<{ rows: CycleRow[]; next?: string }> {
  const query = `WorkflowType = 'agentCycle' AND AgentId = ${visibilityString(agentId)}`;
  const { executions, next } = await listPage(client, query, pageToken, pageSize);
  const rows: CycleRow[] = [];
  for (const execution of executions) {
    const parsed = parseCycleWorkflowId(execution.workflowId);
    if (!parsed || parsed.agentId !== agentId) continue;
    const memo = (execution.memo ?? {}) as { outcome?: unknown; memory?: unknown };
    rows.push({
      workflowId: execution.workflowId,
      runId: execution.runId,
      n: parsed.n,
      status: execution.status.name,
      start: execution.startTime,
      ...(execution.closeTime && { close: execution.closeTime }),
      ...(typeof memo.outcome === 'string' && { outcome: memo.outcome }),
      ...(typeof memo.memory === 'string' && { summary: memo.memory }),
    });
  }
  return { rows, ...(next && { next }) };
}
