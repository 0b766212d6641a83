import { type Client, type WorkflowHandle, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { StagedInput, StagedResult } from '../core/staged/input';
import { agentIdKey } from '../common/search-attributes';
import { parseStagedWorkflowId, stagedWorkflowId } from '../common/ids';
import { type StagedProgress, stagedProgressQuery } from '../common/messages/staged';
import type { StagedTaskWorkflow } from '../common/workflow-types';
import { visibilityString } from './visibility';

/** The highest n of the agent's `staged/<agentId>/<n>` runs that visibility knows of; 0 when none. */
export async function lastStagedNumber(client: Client, agentId: string): Promise<number> {
  let highest = 0;
  const query = `WorkflowType = 'stagedTask' AND AgentId = ${visibilityString(agentId)}`;
  for await (const execution of client.workflow.list({ query })) {
    highest = Math.max(highest, parseStagedWorkflowId(execution.workflowId)?.n ?? 0);
  }
  return highest;
}

/**
 * Starts the agent's staged run `staged/<agentId>/<n>`: the given n, or the next one, stepping past ids visibility
 * had not yet shown.
 */
export async function startStaged(
  client: Client,
  taskQueue: string,
  input: StagedInput,
  given?: number,
): Promise<WorkflowHandle<StagedTaskWorkflow>> {
  let n = given ?? (await lastStagedNumber(client, input.agentId)) + 1;
  for (let tries = 0; ; tries++) {
    try {
      return await client.workflow.start<StagedTaskWorkflow>('stagedTask', {
        taskQueue,
        workflowId: stagedWorkflowId(input.agentId, n),
        args: [input],
        typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: input.agentId }]),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError) || given !== undefined || tries >= 20) throw error;
      n++;
    }
  }
}

/**
 * `--prior-scratchpad last`: the run-local notes of the agent's most recently finished run, a staged run or a
 * cycle (a staged run's own stage cycles excluded: their notes end up in the run's result). No file keeps a pointer:
 * visibility is the record. Empty when that run left no notes or the agent has no finished run.
 */
export async function previousScratchpad(client: Client, agentId: string): Promise<string> {
  const query =
    `AgentId = ${visibilityString(agentId)} AND ExecutionStatus = 'Completed' AND ` +
    `WorkflowType IN ('stagedTask', 'agentCycle')`;
  let latest: { workflowId: string; runId: string; closed: number } | undefined;
  for await (const execution of client.workflow.list({ query })) {
    const isStageCycle = execution.type === 'agentCycle' && execution.workflowId.startsWith('staged/');
    const closed = execution.closeTime?.getTime() ?? 0;
    if (!isStageCycle && (!latest || closed > latest.closed)) {
      latest = { workflowId: execution.workflowId, runId: execution.runId, closed };
    }
  }
  if (!latest) return '';
  const result = (await client.workflow.getHandle(latest.workflowId, latest.runId).result()) as
    Pick<StagedResult, 'scratchpad'> | undefined;
  return typeof result?.scratchpad === 'string' ? result.scratchpad : '';
}

/**
 * The staged-runs facade: starts an agent's staged runs (`staged/<agentId>/<n>`) and reads their
 * progress and results.
 */
export class StagedRuns {
  constructor(readonly client: Client) {}

  /** Starts the run numbered `options.n`, or the agent's next one. */
  start(input: StagedInput, options: { taskQueue: string; n?: number }): Promise<WorkflowHandle<StagedTaskWorkflow>> {
    return startStaged(this.client, options.taskQueue, input, options.n);
  }

  /** Where the run stands: phase, plan, stages so far, verifications, and the outcome once known (a query). */
  progress(workflowId: string): Promise<StagedProgress> {
    return this.handle(workflowId).query(stagedProgressQuery);
  }

  /** The run's result, once it has finished. */
  result(workflowId: string): Promise<StagedResult> {
    return this.handle(workflowId).result();
  }

  /** The number of the agent's latest staged run visibility knows of; 0 when none. */
  lastNumber(agentId: string): Promise<number> {
    return lastStagedNumber(this.client, agentId);
  }

  /** The run-local notes of the agent's latest finished staged run or cycle (`--prior-scratchpad last`). */
  previousScratchpad(agentId: string): Promise<string> {
    return previousScratchpad(this.client, agentId);
  }

  private handle(workflowId: string): WorkflowHandle<StagedTaskWorkflow> {
    return this.client.workflow.getHandle<StagedTaskWorkflow>(workflowId);
  }
}
