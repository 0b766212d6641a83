import * as fs from 'node:fs/promises';
import YAML from 'yaml';
import { Agents } from '../../clients/agents';
import { StagedRuns } from '../../clients/staged-runs';
import { describeChanges, diffScratchpads } from '../../core/scratchpad/diff';
import { type Scratchpad, normalizeScratchpad } from '../../core/scratchpad/scratchpad';
import { CliError, EXIT, outcomeExitCode } from '../errors';
import { webUiUrl, workflowUrl } from '../format';
import * as runtime from '../runtime';
import { agentContext, onAgentQueue } from '../agent-access';
import { agentFrom, resolvePriorScratchpad } from '../agent-runs';
import { defineCommand } from '../command';
import { MAX_ITERATIONS, collect, parsePositiveInt, parseToolPatterns } from '../options';
import { agentWorkflowId } from '../../common/ids';
import { errorMessage } from '../../common/error-message';
import { AgentFollower, agentMark } from '../follow';

/** Reads a scratchpad from a YAML or JSON file; missing keys take their defaults. */
export async function readScratchpadFile(file: string): Promise<Scratchpad> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${errorMessage(error)}`, EXIT.usage);
  }
  try {
    return normalizeScratchpad(YAML.parse(text) ?? {});
  } catch (error) {
    throw new CliError(`${file} is not a valid scratchpad: ${errorMessage(error)}`, EXIT.usage);
  }
}

/**
 * What a cycle will work on when `tasks` join a queue that already has work: the agent finishes its current task
 * first (a cycle works on one task), so the new tasks wait behind it; said before the cycle runs.
 */
export function queueNotice(state: Scratchpad | undefined, tasks: readonly string[]): string | undefined {
  if (!state || tasks.length === 0) return undefined;
  const quoted = tasks.map((task) => `"${task}"`).join(', ');
  const verb = tasks.length === 1 ? 'is' : 'are';
  const others = state.pending_actions.length;
  const behind = others > 0 ? ` and ${others} other pending task(s)` : '';
  if (state.current_task !== null) {
    return `the agent's current task is "${state.current_task}"; ${quoted} ${verb} queued after it${behind}`;
  }
  if (others > 0) return `the agent has ${others} pending task(s) first; ${quoted} ${verb} queued after them`;
  return undefined;
}

/** `scratchpad cycle AGENT`: run one task cycle of an agent through its workflow, following it as it runs. */
export default defineCommand(
  (command) =>
    command
      .argument('[agent]', 'agent id (or --agent)')
      .option('--agent <id>', 'agent id: the same as the AGENT argument')
      .option(
        '--task <text>',
        "task to enqueue before the cycle (repeatable); behind the agent's current task, if it has one",
        collect,
        [],
      )
      .option(
        '--max-iterations <n>',
        'model calls before giving up (default 10)',
        parsePositiveInt('--max-iterations', MAX_ITERATIONS),
      )
      .option(
        '--from <file>',
        "first replace the agent's scratchpad with this file (YAML or JSON; missing keys take defaults)",
      )
      .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
      .option('--tools <list>', "tools offered in this cycle, by name or glob: 'fs_*,web_fetch'", parseToolPatterns)
      .option('--prior-scratchpad <path|last>', "a file, or 'last' for the agent's previous run's notes")
      .option('--json', 'print only the result, as JSON (no progress)'),
  async (agentArgument, options) => {
    const agentId = agentFrom(agentArgument, options.agent, 'cycle');
    const context = await agentContext(agentId);
    const spec = runtime.inProcessModel(context.config, options.model);
    const from = options.from ? await readScratchpadFile(options.from) : undefined;
    const client = await runtime.client(context.config);
    const agents = new Agents(client);
    const { config, target } = await onAgentQueue(agents, context.config, context.target);
    const priorScratchpad =
      options.priorScratchpad === undefined
        ? undefined
        : await resolvePriorScratchpad(new StagedRuns(client), agentId, options.priorScratchpad);
    const state = from ?? (await agents.memo(agentId).catch(() => undefined))?.scratchpad;
    // A cycle with nothing to work on would spend every iteration's model call finding that out.
    if (options.task.length === 0 && !state?.current_task && !state?.pending_actions.length) {
      throw new CliError(`${agentWorkflowId(agentId)} has no task to work on: give one with --task`, EXIT.usage);
    }
    const notice = queueNotice(state, options.task);
    if (notice) process.stderr.write(`Note: ${notice}.\n`);
    if (!options.json) process.stderr.write(`Running a cycle of ${agentWorkflowId(agentId)}…\n`);
    const follower = options.json ? undefined : new AgentFollower(client, agentId, await agentMark(client, agentId));
    let record: Awaited<ReturnType<Agents['runCycle']>>;
    const interrupted = () => {
      follower?.stop();
      process.stderr.write(
        `\nInterrupted: the cycle goes on in ${agentWorkflowId(agentId)}; \`scratchpad status ${agentId}\` shows it, ` +
          `\`scratchpad wake ${agentId} --follow\` follows the next one.\n`,
      );
      process.exit(130);
    };
    // Without an in-process worker, leaving strands nothing: the agent runs the cycle. Say so rather than vanish.
    if (!config.SCRATCHPAD_IN_PROCESS_WORKER) process.once('SIGINT', interrupted);
    try {
      record = await runtime.withWorker(client, config, spec, agentWorkflowId(agentId), () =>
        runtime.unwrapUpdateErrors(async () => {
          if (from) await agents.import(target, from);
          return agents.runCycle(target, {
            tasks: options.task,
            maxIterations: options.maxIterations,
            model: options.model,
            tools: options.tools,
            priorScratchpad,
          });
        }),
      );
    } catch (error) {
      follower?.stop();
      await follower?.done;
      throw error;
    } finally {
      process.removeListener('SIGINT', interrupted);
    }
    await follower?.finish(record.cycleId);
    const states = await agents.cycleStates(record.cycleId);
    if (!states.result) {
      // The cycle never completed (terminated, or it could not start): the agent kept its memory as it was.
      const message = `Cycle ${record.cycleId}: ${record.outcome}${record.error ? `: ${record.error}` : ''}`;
      process.stdout.write(options.json ? `${JSON.stringify(record, null, 2)}\n` : `${message}\n`);
      return outcomeExitCode(record);
    }
    const result = states.result;
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ workflowId: record.cycleId, ...result }, null, 2)}\n`);
      return outcomeExitCode(result);
    }
    const { runId } = await agents.describeCycle(record.cycleId);
    const lines = [
      `Cycle ${record.cycleId}: ${result.outcome} after ${result.iterations} iteration(s)` +
        ` (${result.usage.inputTokens} input / ${result.usage.outputTokens} output tokens)`,
      ...(result.error ? [`Error: ${result.error}`] : []),
      'Changed:',
      ...describeChanges(diffScratchpads(states.input.before, result.after)).map((line) => `  ${line}`),
      `Web UI: ${workflowUrl(webUiUrl(config), config.TEMPORAL_NAMESPACE, record.cycleId, runId)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return outcomeExitCode(result);
  },
);
