import * as fs from 'node:fs/promises';
import YAML from 'yaml';
import { type AgentTarget, Agents, Approvals } from '../../client';
import { callText } from '../approval-calls';
import type { Config } from '../../config';
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
export async function withAgent<T>(
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

/** `scratchpad send AGENT TEXT`: one chat turn; prints the reply as soon as respond ends, exits once reflect has. */
export async function sendCommand(agentId: string, message: string, options: { json?: boolean; model?: string }) {
  const result = await withAgent(agentId, options.model, async (agents, target) => {
    const answer = await agents.send(target, { message });
    if (options.json) {
      process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    } else {
      if (answer.reply) process.stdout.write(`${answer.reply}\n`);
      if (answer.outcome !== 'completed') {
        process.stderr.write(`cycle ${answer.cycleId}: ${answer.outcome}${answer.error ? `: ${answer.error}` : ''}\n`);
      }
    }
    // The reply comes before reflect (design.md, The reply first): an in-process worker stopped now would cut it short,
    // and the next command would find the cycle still running until the agent has adopted its result.
    await agents.client.workflow
      .getHandle(answer.cycleId)
      .result()
      .catch(() => undefined);
    await adopted(agents, agentId, answer.cycleId);
    return answer;
  });
  return outcomeExitCode(result);
}

/** Waits, briefly, until the agent no longer reports `cycleId` as running. */
async function adopted(agents: Agents, agentId: string, cycleId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const status = await agents.status(agentId).catch(() => undefined);
    if (status && status.running?.cycleId !== cycleId) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
  const { status, approvals } = await withAgent(
    agentId,
    options.model,
    async (agents) => ({
      status: await agents.status(agentId),
      // An agent on a worker older than approvals has no such query: it waits on nothing.
      approvals: await new Approvals(agents.client).list(agentId).catch(() => []),
    }),
    { quick: true },
  );
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...status, approvals }, null, 2)}\n`);
    return EXIT.ok;
  }
  const cost = status.costUsd === null ? 'unknown (a model without a known price)' : `$${status.costUsd.toFixed(4)}`;
  process.stdout.write(
    [
      `agent ${status.agentId}: ${status.cycleCount} cycle(s) in ${status.runs} run(s)`,
      `running: ${status.running ? `${status.running.cycleId} (${status.running.trigger})` : 'nothing'}; queued: ${status.queued}`,
      `held directives: ${status.heldDirectives.length ? status.heldDirectives.join(' | ') : 'none'}`,
      `awaiting approval: ${approvals.length === 0 ? 'nothing' : `${approvals.length} call(s) (scratchpad approve / deny)`}`,
      ...approvals.map((call) => `  ${call.callId} ${callText(call)} in ${call.cycleId} since ${call.requestedAt}`),
      `tokens: ${status.usage.inputTokens} input, ${status.usage.outputTokens} output, ` +
        `${status.usage.cacheReadTokens} cache read, ${status.usage.cacheWriteTokens} cache write; cost ${cost}`,
      `settings: ${JSON.stringify(status.settings)}`,
      ...(status.notices?.length ? ['notices:', ...status.notices.map((line) => `  ${line}`)] : []),
    ].join('\n') + '\n',
  );
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
    ...(status.origin ? { origin: status.origin } : {}),
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
