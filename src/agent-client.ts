import {
  type Client,
  WithStartWorkflowOperation,
  type WorkflowExecutionDescription,
  type WorkflowHandleWithSignaledRunId,
  WorkflowNotFoundError,
  type WorkflowUpdateOptions,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { TypedSearchAttributes } from '@temporalio/common';
import type { AgentInput, AgentSettings } from './core/agent';
import { type Scratchpad, ScratchpadSchema } from './core/scratchpad';
import { agentIdKey, cycleCountKey } from './temporal/search-attributes';
import type { agent } from './workflows';
import type { directiveSignal, wakeSignal } from './workflows/definitions';

export function agentWorkflowId(agentId: string): string {
  return `agent/${agentId}`;
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Agent ids become workflow ids and file names: letters, digits, `.`, `_` and `-`. */
export function validateAgentId(agentId: string): string | undefined {
  return AGENT_ID.test(agentId)
    ? undefined
    : `invalid agent id "${agentId}": use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit`;
}

export interface AgentTarget {
  agentId: string;
  taskQueue: string;
  /** Used only when this call starts the agent. */
  settings?: Partial<AgentSettings>;
  purpose?: string;
}

/**
 * The input for starting the agent workflow. An agent whose workflow closed (terminated, say) restarts from the
 * memo of its last run, with its cycle count, so neither memory nor cycle ids are lost.
 */
async function startOptions(client: Client, target: AgentTarget) {
  const input: AgentInput = {
    agentId: target.agentId,
    ...(target.purpose ? { purpose: target.purpose } : {}),
    ...(target.settings ? { settings: target.settings as AgentSettings } : {}),
  };
  const previous = await describeAgent(client, target.agentId);
  if (previous && previous.status.name !== 'RUNNING') {
    const scratchpad = ScratchpadSchema.safeParse((previous.memo as { scratchpad?: unknown } | undefined)?.scratchpad);
    const cycleCount = previous.typedSearchAttributes.get(cycleCountKey) ?? 0;
    if (scratchpad.success) input.scratchpad = scratchpad.data;
    input.carried = {
      cycleCount,
      cycles: [],
      heldDirectives: [],
      directiveLog: [],
      usageByModel: {},
      runs: 0,
      pendingWake: false,
    };
  }
  return {
    workflowId: agentWorkflowId(target.agentId),
    taskQueue: target.taskQueue,
    args: [input] as [AgentInput],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: target.agentId }]),
    staticSummary: `agent ${target.agentId}`,
  };
}

/** Runs an update on the agent, starting the agent workflow first if it is not running (update-with-start). */
export async function updateAgent<Ret, Args extends unknown[]>(
  client: Client,
  target: AgentTarget,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  options: Partial<WorkflowUpdateOptions> = {},
): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof agent>('agent', {
    ...(await startOptions(client, target)),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return client.workflow.executeUpdateWithStart(update, { ...options, args, startWorkflowOperation });
}

/** Sends a signal to the agent, starting it first if needed (signal-with-start). */
export async function signalAgent(
  client: Client,
  target: AgentTarget,
  signal: typeof directiveSignal | typeof wakeSignal,
  args: unknown[],
): Promise<WorkflowHandleWithSignaledRunId<typeof agent>> {
  return client.workflow.signalWithStart('agent', {
    ...(await startOptions(client, target)),
    signal: signal as typeof directiveSignal,
    signalArgs: args as [string],
  });
}

/** The agent workflow's latest run as the server describes it, or undefined when the agent was never started. */
export async function describeAgent(
  client: Client,
  agentId: string,
): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await client.workflow.getHandle(agentWorkflowId(agentId)).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * The agent's active scratchpad without a worker: the memo the agent workflow keeps up to date,
 * or undefined when the agent has never been started.
 */
export async function agentMemo(client: Client, agentId: string): Promise<{ scratchpad: Scratchpad } | undefined> {
  const memo = (await describeAgent(client, agentId))?.memo as { scratchpad?: Scratchpad } | undefined;
  if (memo?.scratchpad) return { scratchpad: memo.scratchpad };
  return undefined;
}
