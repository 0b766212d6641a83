import { NoWorkerError, workerToolCatalogue } from '../clients/worker-tools';
import type { WorkerToolsResult } from '../common/workflow-types';
import { SPAWN_SUBAGENT } from '../core/tools/catalogue';
import type { ToolDescriptor, ToolPolicy } from '../core/tools/descriptor';
import { selectTools } from '../core/tools/select';
import { errorMessage } from '../common/error-message';
import { CliError } from './errors';
import * as runtime from './runtime';

// A running worker's tools as `tools` lists them and `configure --tools` checks them.

/** A policy as one short column: `timeout 30s, no retry, inline`; `-` for the defaults. */
export function policyText(policy: ToolPolicy): string {
  const parts = [
    ...(policy.timeoutMs !== undefined ? [`timeout ${policy.timeoutMs / 1000}s`] : []),
    ...(policy.retry ? [] : ['no retry']),
    ...(policy.offload ? [] : ['inline']),
  ];
  return parts.length > 0 ? parts.join(', ') : '-';
}

/**
 * Whether a person decides before the tool runs: `ask` by the tool's or the worker's policy, `ask (agent)` by the
 * agent's own `approve` setting only, or `auto`.
 */
export function approvalOf(tool: ToolDescriptor, agentAsks?: ReadonlySet<string>): 'ask' | 'ask (agent)' | 'auto' {
  if (tool.policy.approval === 'ask') return 'ask';
  return agentAsks?.has(tool.name) ? 'ask (agent)' : 'auto';
}

function firstLine(text: string, width: number): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** The catalogue as a table: name, source, policy, approval and the description's first line; `*` marks what is offered. */
export function toolsTable(
  tools: readonly ToolDescriptor[],
  offered?: ReadonlySet<string>,
  agentAsks?: ReadonlySet<string>,
): string {
  const rows = tools.map((tool) => [
    `${offered ? (offered.has(tool.name) ? '* ' : '  ') : ''}${tool.name}`,
    tool.source,
    policyText(tool.policy),
    approvalOf(tool, agentAsks),
    firstLine(tool.description, 70),
  ]);
  const header = [offered ? '  NAME' : 'NAME', 'SOURCE', 'POLICY', 'APPROVAL', 'DESCRIPTION'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n');
}

/**
 * What an agent's settings select from the catalogue, and the names in them the worker does not have; settings that
 * name no tools get the worker's default selection, as its cycles do.
 */
export function agentSelection(catalogue: WorkerToolsResult, patterns: readonly string[] | null | undefined) {
  return selectTools(patterns ?? catalogue.defaults, catalogue.tools, [SPAWN_SUBAGENT]);
}

/** Asks a running worker for its tools; a clear error when none runs. */
export async function fetchCatalogue(): Promise<WorkerToolsResult> {
  const config = runtime.config();
  const client = await runtime.client(config);
  try {
    return await workerToolCatalogue(client, config.SCRATCHPAD_TASK_QUEUE);
  } catch (error) {
    if (error instanceof NoWorkerError) throw new CliError(error.message);
    throw new CliError(`cannot list the worker's tools: ${errorMessage(error)}`);
  }
}

/** Names in `--tools` that no running worker has are said, not silently dropped (the cycle's notes say it too). */
export async function reportUnmatchedTools(patterns: string[]): Promise<void> {
  let unmatched: string[];
  try {
    unmatched = agentSelection(await fetchCatalogue(), patterns).unmatched;
  } catch (error) {
    process.stderr.write(`Not checked against a worker's tools: ${errorMessage(error)}\n`);
    return;
  }
  if (unmatched.length > 0) {
    process.stderr.write(
      `Warning: the worker has no tool matching ${unmatched.join(', ')} (see \`scratchpad tools\`).\n`,
    );
  }
}
