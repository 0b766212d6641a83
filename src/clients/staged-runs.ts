import { type Client, type WorkflowHandle, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { StagedInput, StagedResult } from '../core/staged/input';
import { agentIdKey } from '../common/search-attributes';
import { parseStagedWorkflowId, stagedWorkflowId } from '../common/ids';
import { type StagedProgress, stagedProgressQuery } from '../common/messages/staged';
import type { StagedTaskWorkflow } from '../common/workflow-types';
import { visibilityString } from './visibility';
import { headCodePoints } from '../core/text';

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
 * had not yet shown. Its summary and static details say what it was asked.
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
      const workflowId = stagedWorkflowId(input.agentId, n);
      return await client.workflow.start<StagedTaskWorkflow>('stagedTask', {
        taskQueue,
        workflowId,
        args: [input],
        typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: input.agentId }]),
        // What it was asked, in the Web UI with no worker running; the run's memo says what became of it.
        staticSummary: stagedSummary(input),
        staticDetails: stagedAskedDetails(input, workflowId),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError) || given !== undefined || tries >= 20) throw error;
      n++;
    }
  }
}

/** One line: whitespace folded, capped. */
function oneLine(text: string, points: number): string {
  return headCodePoints(text.replace(/\s+/g, ' ').trim(), points);
}

/** The one-line summary of a staged run in the Web UI's list and page. */
export function stagedSummary(input: Pick<StagedInput, 'task'>): string {
  return headCodePoints(`staged: ${oneLine(input.task, 200)}`, 120);
}

/**
 * What a staged run was asked, as markdown: its static details, so the Web UI shows them with no worker running,
 * whatever becomes of the run (its memo says that at the end). The task is cut at 4,000 code points.
 */
export function stagedAskedDetails(input: StagedInput, workflowId: string): string {
  const limits = [
    `at most ${input.maxPaths ?? 'the default number of'} paths per stage`,
    `${input.maxRepairs ?? 2} repair stage(s)`,
    `${input.maxIterations ?? 10} iterations per stage`,
    ...(input.model ? [`model \`${oneLine(input.model, 200)}\``] : []),
  ];
  const plan = input.staged === false ? 'one stage, no plan' : input.staged ? 'planned in stages' : 'staged if long';
  const verify = input.verify ? `\`${oneLine(input.verify, 1000)}\`` : 'none: the run can end `unverified` at best';
  return [
    `**staged run** \`${workflowId}\` of agent \`${input.agentId}\`: ${plan}; ${limits.join(', ')}`,
    `### Task\n${headCodePoints(input.task, 4000)}`,
    `### Verification\n${verify}`,
  ].join('\n\n');
}

/** Where `--prior-scratchpad last` found its notes: the run, what kind it is, when it finished, and the notes. */
export interface RunNotes {
  text: string;
  workflowId: string;
  kind: 'staged run' | 'task cycle';
  closedAt: Date | undefined;
}

/** Finished runs read at most, newest first, looking for notes: an agent's recent chat turns are skipped on the way. */
const MAX_RUNS_READ = 100;

/**
 * `--prior-scratchpad last`: the latest finished task cycle or staged run of the agent that recorded run-local notes.
 * A chat turn keeps none, and neither does a cycle that wrote no `scratchpad` field, so they are passed over (as are a
 * staged run's own stage cycles and sub-agents: their notes end up in their run's). No file keeps a pointer:
 * visibility is the record. Undefined when no such run exists.
 */
export async function latestRunNotes(client: Client, agentId: string): Promise<RunNotes | undefined> {
  const query =
    `AgentId = ${visibilityString(agentId)} AND ExecutionStatus = 'Completed' AND ` +
    `WorkflowType IN ('stagedTask', 'agentCycle')`;
  const finished: { workflowId: string; runId: string; type: string; closedAt: Date | undefined }[] = [];
  for await (const execution of client.workflow.list({ query })) {
    const inner = execution.workflowId.startsWith('staged/') || execution.workflowId.includes('/sub/');
    if (execution.type === 'agentCycle' && inner) continue;
    const { workflowId, runId, type, closeTime } = execution;
    finished.push({ workflowId, runId, type, closedAt: closeTime });
  }
  finished.sort((a, b) => (b.closedAt?.getTime() ?? 0) - (a.closedAt?.getTime() ?? 0));
  for (const run of finished.slice(0, MAX_RUNS_READ)) {
    const result = (await client.workflow.getHandle(run.workflowId, run.runId).result()) as
      { scratchpad?: unknown; runNotes?: unknown; reply?: unknown } | undefined;
    // A chat turn's result carries its reply: whatever else it holds, it is no run that keeps notes.
    if (!result || result.reply !== undefined) continue;
    // A staged run's result names them `scratchpad`, a cycle's `runNotes`.
    const text = run.type === 'stagedTask' ? result.scratchpad : result.runNotes;
    if (typeof text !== 'string' || text.trim() === '') continue;
    const kind = run.type === 'stagedTask' ? 'staged run' : 'task cycle';
    return { text, workflowId: run.workflowId, kind, closedAt: run.closedAt };
  }
  return undefined;
}

/** The notes `latestRunNotes` finds, or empty when there are none. */
export async function previousScratchpad(client: Client, agentId: string): Promise<string> {
  return (await latestRunNotes(client, agentId))?.text ?? '';
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

  /** The agent's latest finished task cycle or staged run that left run-local notes, and which one it is. */
  latestNotes(agentId: string): Promise<RunNotes | undefined> {
    return latestRunNotes(this.client, agentId);
  }

  private handle(workflowId: string): WorkflowHandle<StagedTaskWorkflow> {
    return this.client.workflow.getHandle<StagedTaskWorkflow>(workflowId);
  }
}
