import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import type { temporal } from '@temporalio/proto';
/** A value quoted for a visibility query; agent ids need no escaping, but quote defensively. */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * One listed execution as `client.workflow.list` gives it, except that a memo this client cannot decode (another
 * encryption key, another converter) is left empty instead of failing: one unreadable workflow must not hide the rest.
 */
export async function executionOf(
  client: Client,
  raw: temporal.api.workflow.v1.IWorkflowExecutionInfo,
): Promise<WorkflowExecutionInfo> {
  const converter = client.options.loadedDataConverter;
  const { namespace } = client.options;
  const info = await executionInfoFromRaw(raw, converter, raw, namespace).catch(() =>
    // Field defaults live on the message's prototype: keep it, and hide only the memo.
    executionInfoFromRaw(Object.create(raw, { memo: { value: null } }), converter, raw, namespace),
  );
  return info as WorkflowExecutionInfo;
}

/**
 * Every execution a visibility query lists, as `client.workflow.list` gives them, except that a memo this client cannot
 * decode (another encryption key, another converter) is left empty instead of ending the whole listing: one
 * unreadable workflow must not hide the rest of the namespace.
 */
export async function listExecutions(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const response = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      nextPageToken,
    });
    for (const raw of response.executions ?? []) found.push(await executionOf(client, raw));
    nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
  } while (nextPageToken);
  return found;
}
