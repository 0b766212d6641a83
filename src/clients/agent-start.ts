import {
  type Client,
  WithStartWorkflowOperation,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  type WorkflowHandleWithSignaledRunId,
  WorkflowNotFoundError,
  type WorkflowUpdateOptions,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { TypedSearchAttributes } from '@temporalio/common';
import type { AgentInput, AgentSettings } from '../core/agent/agent';
import { ScratchpadSchema } from '../core/scratchpad/scratchpad';
import { agentIdKey, cycleCountKey } from '../common/search-attributes';
import { agentWorkflowId } from '../common/ids';
import type { AgentWorkflow } from '../common/workflow-types';
import type { directiveSignal, wakeSignal } from '../common/messages/agent';

/** The agent a call addresses, and what its workflow starts with when the call starts it. */
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
    const scratchpad = ScratchpadSchema().safeParse(
      (previous.memo as { scratchpad?: unknown } | undefined)?.scratchpad,
    );
    const cycleCount = previous.typedSearchAttributes.get(cycleCountKey) ?? 0;
    if (scratchpad.success) input.scratchpad = scratchpad.data;
    input.handover = {
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
    staticDetails: agentDetails(target),
  };
}

/**
 * The agent's static details in the Web UI, readable with no worker running: what it was started with, and where
 * the rest is (its memo holds its scratchpad and status; each cycle is a child workflow with its own outcome).
 */
function agentDetails(target: AgentTarget): string {
  const settings = Object.entries(target.settings ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `- ${key}: ${JSON.stringify(value).slice(0, 300)}`);
  return [
    `**agent** \`${target.agentId}\` on task queue \`${target.taskQueue}\``,
    ...(target.purpose ? [`### Purpose\n${target.purpose.slice(0, 2000)}`] : []),
    ...(settings.length > 0 ? [`### Settings at start\n${settings.slice(0, 40).join('\n')}`] : []),
    '### Where to look\n- Memo: `scratchpad` and `status`, as of its latest cycle\n' +
      `- Cycles: its children \`agent/${target.agentId}/cycle/N\`, each with its outcome (\`CycleOutcome\`)`,
  ].join('\n\n');
}

/** Starts the agent workflow, or finds it running (its settings and purpose then stay as they are). */
export async function startAgent(client: Client, target: AgentTarget): Promise<WorkflowHandle<AgentWorkflow>> {
  return client.workflow.start<AgentWorkflow>('agent', {
    ...(await startOptions(client, target)),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/** Runs an update on the agent, starting the agent workflow first if it is not running (update-with-start). */
export async function updateAgent<Ret, Args extends unknown[]>(
  client: Client,
  target: AgentTarget,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  options: Partial<WorkflowUpdateOptions> = {},
): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation<AgentWorkflow>('agent', {
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
): Promise<WorkflowHandleWithSignaledRunId<AgentWorkflow>> {
  return client.workflow.signalWithStart<AgentWorkflow, [string]>('agent', {
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
