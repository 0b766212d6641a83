import * as fs from 'node:fs/promises';
import YAML from 'yaml';
import { type AgentTarget, Agents } from '../../client';
import type { Config } from '../../config';
import type { AgentSettings } from '../../core/agent/agent';
import { DirectiveTextSchema } from '../../core/cycle/input';
import { describeIssues } from '../../common/workflow-input';
import { type Scratchpad, normalizeScratchpad } from '../../core/scratchpad/scratchpad';
import { CliError, EXIT, outcomeExitCode } from '../errors';
import * as runtime from '../runtime';
import { agentWorkflowId, validateAgentId } from '../../common/ids';
import { errorMessage } from '../../common/error-message';

/** The `format` an export document carries, so `import` tells it from a bare scratchpad. */
export const EXPORT_FORMAT = 'durable-scratchpad/agent-v1';

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

/** Runs `work` against the agent with a worker available (an in-process one when none polls). */
async function withAgent<T>(
  agentId: string,
  model: string | undefined,
  work: (agents: Agents, target: AgentTarget) => Promise<T>,
  options: { quick?: boolean } = {},
) {
  const context = await agentContext(agentId);
  const spec = runtime.modelSpec(context.config, model);
  const client = await runtime.client(context.config);
  const agents = new Agents(client);
  const { config, target } = await onAgentQueue(agents, context.config, context.target);
  return runtime.withWorker(
    client,
    config,
    spec,
    agentWorkflowId(agentId),
    () => runtime.unwrapUpdateErrors(() => work(agents, target)),
    options,
  );
}

/** `scratchpad send AGENT TEXT`: one chat turn; prints the reply. */
export async function sendCommand(agentId: string, message: string, options: { json?: boolean; model?: string }) {
  const result = await withAgent(agentId, options.model, (agents, target) => agents.send(target, { message }));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    if (result.reply) process.stdout.write(`${result.reply}\n`);
    if (result.outcome !== 'completed') {
      process.stderr.write(`cycle ${result.cycleId}: ${result.outcome}${result.error ? `: ${result.error}` : ''}\n`);
    }
  }
  return outcomeExitCode(result);
}

/** `scratchpad directive AGENT TEXT`: a signal; reaches the running cycle's next iteration or waits for the next cycle. */
export async function directiveCommand(agentId: string, text: string) {
  const refused = DirectiveTextSchema().safeParse(text);
  if (!refused.success) throw new CliError(`directive refused: ${describeIssues(refused.error)}`, EXIT.usage);
  const { config, target } = await agentContext(agentId);
  await new Agents(await runtime.client(config)).directive(target, text);
  process.stdout.write(`Directive sent to ${agentWorkflowId(agentId)}.\n`);
  return EXIT.ok;
}

/** `scratchpad wake AGENT`: run a task cycle if tasks are pending. */
export async function wakeCommand(agentId: string, options: { task: string[] }) {
  const { config, target } = await agentContext(agentId);
  await new Agents(await runtime.client(config)).wake(target, { tasks: options.task, trigger: 'manual' });
  process.stdout.write(`Wake sent to ${agentWorkflowId(agentId)}.\n`);
  return EXIT.ok;
}

/** `scratchpad inject AGENT SECTION TEXT`: one update key through safe apply, as a model's update would go. */
export async function injectCommand(agentId: string, section: string, content: string, options: { model?: string }) {
  const result = await withAgent(agentId, options.model, (agents, target) =>
    agents.inject(target, { section: section as never, content }),
  );
  process.stdout.write(`${section} = ${result}\n`);
  return EXIT.ok;
}

/** `scratchpad enqueue AGENT --task T --goal G`: add to the task queue without running a cycle. */
export async function enqueueCommand(agentId: string, options: { task: string[]; goal: string[]; model?: string }) {
  const result = await withAgent(agentId, options.model, (agents, target) =>
    agents.enqueue(target, { tasks: options.task, goals: options.goal }),
  );
  process.stdout.write(
    `current_task: ${result.current_task ?? '(none)'}\npending_actions: ${result.pending_actions.length}\n`,
  );
  return EXIT.ok;
}

/** `scratchpad status AGENT`: cycles, what is running, held directives, usage and cost. */
export async function statusCommand(agentId: string, options: { json?: boolean; model?: string }) {
  const status = await withAgent(agentId, options.model, (agents) => agents.status(agentId), { quick: true });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return EXIT.ok;
  }
  const cost = status.costUsd === null ? 'unknown (a model without a known price)' : `$${status.costUsd.toFixed(4)}`;
  process.stdout.write(
    [
      `agent ${status.agentId}: ${status.cycleCount} cycle(s) in ${status.runs} run(s)`,
      `running: ${status.running ? `${status.running.cycleId} (${status.running.trigger})` : 'nothing'}; queued: ${status.queued}`,
      `held directives: ${status.heldDirectives.length ? status.heldDirectives.join(' | ') : 'none'}`,
      `tokens: ${status.usage.inputTokens} input, ${status.usage.outputTokens} output, ` +
        `${status.usage.cacheReadTokens} cache read, ${status.usage.cacheWriteTokens} cache write; cost ${cost}`,
      `settings: ${JSON.stringify(status.settings)}`,
      ...(status.notices?.length ? ['notices:', ...status.notices.map((line) => `  ${line}`)] : []),
    ].join('\n') + '\n',
  );
  return EXIT.ok;
}

/** The options of `scratchpad configure`, as commander parses them. */
export interface ConfigureOptions {
  cycleModel?: string;
  reflectModel?: string;
  singlePhase?: boolean;
  twoPhase?: boolean;
  budget?: number;
  maxIterations?: number;
  continueAsNewEvery?: number;
  tools?: string[];
  allTools?: boolean;
}

/** `scratchpad configure AGENT ...`: change how the agent runs its cycles. */
export async function configureCommand(agentId: string, options: ConfigureOptions) {
  if (options.singlePhase && options.twoPhase) {
    throw new CliError('choose --single-phase or --two-phase, not both', EXIT.usage);
  }
  const requested: Partial<AgentSettings> = {
    model: options.cycleModel,
    reflectModel: options.reflectModel,
    twoPhase: options.singlePhase ? false : options.twoPhase ? true : undefined,
    budgetChars: options.budget,
    maxIterations: options.maxIterations,
    continueAsNewEvery: options.continueAsNewEvery,
    tools: options.allTools ? null : options.tools,
  };
  if (options.allTools && options.tools) throw new CliError('choose --tools or --all-tools, not both', EXIT.usage);
  const changes = Object.fromEntries(Object.entries(requested).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length === 0)
    throw new CliError('nothing to configure: give at least one option', EXIT.usage);
  // The cycle model is also the model of an in-process worker, should this command need one.
  const settings = await withAgent(agentId, options.cycleModel, (agents, target) => agents.configure(target, changes));
  process.stdout.write(`${JSON.stringify(settings, null, 2)}\n`);
  if (options.tools) await (await import('./tools')).reportUnmatchedTools(options.tools);
  return EXIT.ok;
}

/** `scratchpad export AGENT`: the scratchpad and settings as JSON on stdout, in the form `import` reads. */
export async function exportCommand(agentId: string, options: { model?: string }) {
  const { scratchpad, status } = await withAgent(
    agentId,
    options.model,
    async (agents) => ({ scratchpad: await agents.scratchpad(agentId), status: await agents.status(agentId) }),
    { quick: true },
  );
  const document = {
    format: EXPORT_FORMAT,
    agentId,
    exportedAt: new Date().toISOString(),
    turn: status.cycleCount,
    purpose: scratchpad.identity.purpose,
    settings: status.settings,
    scratchpad,
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  return EXIT.ok;
}

/** Reads an export document, or a bare scratchpad in YAML or JSON. */
export async function readImport(file: string): Promise<Scratchpad> {
  let parsed: unknown;
  try {
    parsed = YAML.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${errorMessage(error)}`, EXIT.usage);
  }
  const body =
    (parsed as { format?: string; scratchpad?: unknown })?.format === EXPORT_FORMAT
      ? (parsed as { scratchpad: unknown }).scratchpad
      : parsed;
  try {
    return normalizeScratchpad(body);
  } catch (error) {
    throw new CliError(`${file} does not hold a valid scratchpad: ${errorMessage(error)}`, EXIT.usage);
  }
}

/** `scratchpad import AGENT FILE`: replaces the agent's active scratchpad. */
export async function importCommand(agentId: string, file: string, options: { model?: string }) {
  const scratchpad = await readImport(file);
  await withAgent(agentId, options.model, (agents, target) => agents.import(target, scratchpad));
  process.stdout.write(`Imported ${file} into ${agentWorkflowId(agentId)}.\n`);
  return EXIT.ok;
}

/** `scratchpad trace AGENT --out FILE`: one record per cycle, read from the cycles' histories. */
export async function traceCommand(agentId: string, options: { out: string }) {
  const { config } = await agentContext(agentId);
  const agents = new Agents(await runtime.client(config));
  const turns = [];
  for (const cycle of await agents.listCycles(agentId)) {
    const states = await agents.cycleStates(cycle.workflowId, cycle.runId);
    turns.push({
      turn: cycle.n,
      cycleId: cycle.workflowId,
      trigger: states.input.trigger,
      input: states.input.kind === 'chat' ? states.input.message : states.input.before.current_task,
      response: states.result?.reply ?? null,
      outcome: states.result?.outcome ?? cycle.status.toLowerCase(),
      usage: states.result?.usage ?? null,
      directives: states.result?.directives ?? [],
      scratchpad_before: states.input.before,
      scratchpad_after: states.result?.after ?? null,
    });
  }
  if (turns.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
  await fs.writeFile(options.out, `${JSON.stringify(turns, null, 2)}\n`);
  process.stdout.write(`Wrote ${turns.length} turn(s) to ${options.out}\n`);
  return EXIT.ok;
}
