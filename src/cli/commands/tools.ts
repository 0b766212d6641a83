import { Agents } from '../../clients/agents';
import type { WorkerModel } from '../../common/workflow-types';
import { SPAWN_SUBAGENT } from '../../core/tools/catalogue';
import { selectTools } from '../../core/tools/select';
import { errorMessage } from '../../common/error-message';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { agentSelection, approvalOf, fetchCatalogue, toolsTable } from '../tool-catalogue';

/** The worker's default model, how it asks for calls and its context window. */
function modelLine(model: WorkerModel): string {
  if (model.problem) return `model: ${model.spec} (not probed yet: ${model.problem})`;
  const how = [
    model.protocol && `calls as #${model.protocol}`,
    model.contextTokens && `context ${model.contextTokens} tokens`,
  ].filter(Boolean);
  return `model: ${model.spec}${how.length > 0 ? ` (${how.join(', ')})` : ''}`;
}

/** `scratchpad tools`: the tools a worker would offer, with their sources and policies (and an agent's selection). */
export default defineCommand(
  (command) =>
    command
      .option('--agent <id>', "mark the tools this agent's settings select, and names the worker does not have")
      .option('--json', 'print every tool with its input schema as JSON'),
  async (options) => {
    const catalogue = await fetchCatalogue();
    let selection: ReturnType<typeof agentSelection> | undefined;
    // The tools the agent's own `approve` patterns make ask, beside the worker's policies.
    let agentAsks: Set<string> | undefined;
    if (options.agent !== undefined) {
      const config = runtime.config();
      const agents = new Agents(await runtime.client(config));
      const description = await agents.describe(options.agent);
      if (!description) throw new CliError(`no agent ${options.agent}`, EXIT.usage);
      const status = await agents.status(options.agent).catch((error: unknown) => {
        throw new CliError(`cannot read the settings of agent ${options.agent}: ${errorMessage(error)}`);
      });
      selection = agentSelection(catalogue, status.settings.tools);
      const approve = status.settings.approve ?? [];
      agentAsks = new Set(selectTools(approve, catalogue.tools, []).offered);
    }
    if (options.json) {
      // With an agent: also which tools ask a person before they run for it (`policy.approval` says the worker's).
      const asks = agentAsks && catalogue.tools.filter((tool) => approvalOf(tool, agentAsks) !== 'auto');
      const offered = selection && {
        offered: selection.offered,
        unmatched: selection.unmatched,
        asks: asks?.map((tool) => tool.name),
      };
      // Only the descriptor's fields: a tool from code arrives with the rest of its definition (its `kind` marker).
      const tools = catalogue.tools.map(({ name, source, description, inputSchema, policy }) => ({
        name,
        source,
        description,
        inputSchema,
        policy,
      }));
      const { failures, defaults, model } = catalogue;
      process.stdout.write(
        `${JSON.stringify({ tools, failures, ...(defaults && { defaults }), ...offered, ...(model && { model }) }, null, 2)}\n`,
      );
      return EXIT.ok;
    }
    const lines = [toolsTable(catalogue.tools, selection && new Set(selection.offered), agentAsks)];
    if (selection) {
      lines.push(
        '',
        `* offered to ${options.agent}${selection.offered.includes(SPAWN_SUBAGENT) ? ` (with ${SPAWN_SUBAGENT})` : ''}`,
      );
      if (selection.unmatched.length > 0) lines.push(`not on this worker: ${selection.unmatched.join(', ')}`);
    }
    for (const failure of catalogue.failures) lines.push(`unavailable: ${failure}`);
    if (catalogue.model) lines.push(modelLine(catalogue.model));
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
);
