import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { AgentSettings } from '../../core/agent/agent';
import { formatDuration } from '../../core/duration';
import { DEFAULT_OUTPUT_CAPS } from '../../core/cycle/output-caps';
import { describeAgent } from '../../clients/agent-start';
import { type AgentOverview, hasAgentWorkflows, listAgents } from '../../clients/agent-overview';
import { agentWorkflowId, validateAgentId } from '../../common/ids';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { heartbeatTimeoutOf } from '../../core/cycle/liveness';

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

/** An agent's settings, one `key: value` a line, defaults spelt out. */
export function settingsLines(settings: AgentSettings): string[] {
  const patterns = (list: string[] | null | undefined, none: string) => (list?.length ? list.join(', ') : none);
  return [
    `model: ${settings.model ?? "(the worker's default)"}`,
    `reflectModel: ${settings.reflectModel ?? '(the cycle model)'}`,
    `twoPhase: ${settings.twoPhase}`,
    `maxIterations: ${settings.maxIterations}`,
    `budgetChars: ${settings.budgetChars}`,
    `continueAsNewEvery: ${settings.continueAsNewEvery}`,
    `tools: ${patterns(settings.tools, '(the default: the built-ins and every tool the worker has)')}`,
    `approve: ${patterns(settings.approve, "(none of its own; the worker's and the tools' policies apply)")}`,
    `approvalTimeout: ${settings.approvalTimeoutMs === undefined ? '24h (the default)' : formatDuration(settings.approvalTimeoutMs)}`,
    `maxOutputTokens: ${(['respond', 'reflect', 'task'] as const).map((phase) => `${phase}=${settings.maxOutputTokens?.[phase] ?? DEFAULT_OUTPUT_CAPS[phase]}`).join(', ')}`,
    `heartbeatTimeout: ${(['model', 'tool', 'verification'] as const).map((kind) => `${kind}=${heartbeatTimeoutOf(settings, kind) / 1000}s`).join(', ')}`,
    ...(settings.cacheTtl ? [`cacheTtl: ${settings.cacheTtl}`] : []),
  ];
}

/** A time as people read it in a table: UTC to the second. */
export function shortTime(time: Date): string {
  return `${time.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** In words: what the agent does now. */
function stateOf(agent: AgentOverview): string {
  if (agent.state !== 'RUNNING') return `ended (${agent.state.toLowerCase()})`;
  return agent.running.length > 0 ? `running ${agent.running.join(', ')}` : 'idle';
}

/** The rows as an aligned table, the last column unpadded. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n');
}

/** `scratchpad agents list`: every agent of the namespace, the most recently active first (no worker needed). */
export async function agentsListCommand(options: { json?: boolean }): Promise<number> {
  const agents = await listAgents(await runtime.client(runtime.config()));
  if (options.json) {
    const shown = agents.map(({ memo: _memo, ...agent }) => ({ ...agent, lastActive: agent.lastActive.toISOString() }));
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return EXIT.ok;
  }
  if (agents.length === 0) {
    process.stdout.write(
      'No agents yet: `scratchpad send AGENT TEXT` or `scratchpad cycle AGENT --task TEXT` starts one.\n',
    );
    return EXIT.ok;
  }
  const rows = agents.map((agent) => [
    agent.agentId,
    String(agent.cycleCount),
    agent.lastOutcome ?? '-',
    shortTime(agent.lastActive),
    agent.approvals.length > 0 ? `${agent.approvals.length} call(s)` : '-',
    stateOf(agent),
  ]);
  process.stdout.write(
    `${table([['AGENT', 'CYCLES', 'LAST OUTCOME', 'LAST ACTIVE', 'AWAITING APPROVAL', 'STATE'], ...rows])}\n`,
  );
  return EXIT.ok;
}

/**
 * `scratchpad agents delete AGENT [--purge]`: ends the agent (its schedules, its workflow and everything of it that
 * runs), and with `--purge` deletes its stored observations. Asks nothing; prints what it did.
 */
export async function agentsDeleteCommand(agentId: string, options: { purge?: boolean }): Promise<number> {
  const config = runtime.config();
  const client = await runtime.client(config);
  await requireAgent(client, agentId, { orAnyRun: true });
  const { endAgent, purgeObservations } = await import('../../clients/agent-removal');
  const ended = await endAgent(client, agentId, 'deleted with `scratchpad agents delete`');
  const lines = [
    ...ended.schedules.map((scheduleId) => `Deleted schedule ${scheduleId}.`),
    ...ended.terminated.map((workflowId) => `Terminated ${workflowId}.`),
  ];
  if (ended.terminated.length === 0) lines.push(`Nothing of ${agentId} was running.`);
  if (options.purge) {
    const removed = await purgeObservations(config.observations, agentId);
    // A Redis URL may carry a password: name the kind of store only.
    const store = /^rediss?:/i.test(config.observations) ? 'the Redis observation store' : config.observations;
    lines.push(`Deleted ${removed} stored observation(s) of ${agentId} from ${store}.`);
  } else {
    lines.push(
      `Its histories stay (show, export and trace read them); \`--purge\` also deletes its stored observations.`,
    );
  }
  lines.push(
    `${agentWorkflowId(agentId)} is ended; \`scratchpad send ${agentId} TEXT\` would start it again from its memory.`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
