import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { type AgentOverview, hasAgentWorkflows, readAgent } from '../clients/agent-overview';
import { type AgentTarget, Agents } from '../clients/agents';
import { describeAgent } from '../clients/agent-start';
import { agentWorkflowId, validateAgentId } from '../common/ids';
import type { Config } from '../config';
import { CliError, EXIT } from './errors';
import * as runtime from './runtime';

// How commands reach the agent they address: its id checked, its existence required, a worker made available.

/** The one-line error of a command that addresses an agent no one started. */
export function noAgentError(agentId: string): CliError {
  return new CliError(`no agent "${agentId}" (scratchpad agents list shows the agents)`);
}

/**
 * The agent's workflow as the server describes it, or the one-line {@link noAgentError} when it was never started: the
 * check of every command that addresses an existing agent. With `orAnyRun`, an agent that has only other workflows
 * (cycles or staged runs, which commands reading histories or deciding approvals serve) passes too, as undefined.
 */
export async function requireAgent(
  client: Client,
  agentId: string,
  options: { orAnyRun?: boolean } = {},
): Promise<WorkflowExecutionDescription | undefined> {
  const problem = validateAgentId(agentId);
  if (problem) throw new CliError(problem, EXIT.usage);
  const description = await describeAgent(client, agentId);
  if (description) return description;
  if (options.orAnyRun && (await hasAgentWorkflows(client, agentId))) return undefined;
  throw noAgentError(agentId);
}

/** Configuration and the agent a command addresses; the agent id is checked first. */
export async function agentContext(agentId: string) {
  const problem = validateAgentId(agentId);
  if (problem) throw new CliError(problem, EXIT.usage);
  const config = runtime.config();
  const target: AgentTarget = { agentId, taskQueue: config.SCRATCHPAD_TASK_QUEUE };
  return { config, target };
}

/**
 * A running agent keeps the task queue it started on; serve that one, so changing SCRATCHPAD_TASK_QUEUE later does
 * not leave the agent without a worker.
 */
export async function onAgentQueue(agents: Agents, config: Config, target: AgentTarget) {
  const description = await agents.describe(target.agentId);
  if (!description || description.status.name !== 'RUNNING') return { config, target };
  const queue = description.taskQueue;
  return { config: { ...config, SCRATCHPAD_TASK_QUEUE: queue }, target: { ...target, taskQueue: queue } };
}

/**
 * Runs `work` against the agent with a worker available (an in-process one when none polls and one is allowed).
 * Unless `create`, the agent must exist: a mistyped id is an error, not a new agent.
 */
export async function withAgent<T>(
  agentId: string,
  model: string | undefined,
  work: (agents: Agents, target: AgentTarget, served: { readonly inProcess: boolean }) => Promise<T>,
  options: { quick?: boolean; create?: boolean } = {},
) {
  const context = await agentContext(agentId);
  // A running worker has its own model: only an in-process one needs this command's.
  const spec = runtime.inProcessModel(context.config, model);
  const client = await runtime.client(context.config);
  const agents = new Agents(client);
  if (!options.create) await requireAgent(client, agentId);
  const { config, target } = await onAgentQueue(agents, context.config, context.target);
  return runtime.withWorker(
    client,
    config,
    spec,
    agentWorkflowId(agentId),
    (served) => runtime.unwrapUpdateErrors(() => work(agents, target, served)),
    options,
  );
}

/** The agent a signal goes to: it must exist unless `create` (signal-with-start would start a mistyped one). */
export async function signalTarget(agentId: string, create: boolean | undefined) {
  const { config, target } = await agentContext(agentId);
  const agents = new Agents(await runtime.client(config));
  if (!create) await requireAgent(agents.client, agentId);
  return { agents, target };
}

/** What the server and the agent's memo say of an agent that must exist: for `status` and `export` (no worker). */
export async function overviewOf(agentId: string): Promise<{ agents: Agents; overview: AgentOverview }> {
  const agents = new Agents(await runtime.client(runtime.config()));
  const description = await requireAgent(agents.client, agentId);
  const overview = await readAgent(agents.client, agentId, description);
  return { agents, overview: overview as AgentOverview };
}
