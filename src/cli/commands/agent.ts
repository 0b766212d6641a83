import * as fs from 'node:fs/promises';
import YAML from 'yaml';
import { type AgentTarget, Agents } from '../../client';
import type { Config } from '../../config';
import { type CycleResult, DirectiveTextSchema } from '../../core/cycle/input';
import { describeIssues } from '../../common/workflow-input';
import { SECTION_KEYS, type Scratchpad, isSectionKey, normalizeScratchpad } from '../../core/scratchpad/scratchpad';
import { CliError, EXIT, outcomeExitCode } from '../errors';
import * as runtime from '../runtime';
import { agentWorkflowId, validateAgentId } from '../../common/ids';
import { errorMessage } from '../../common/error-message';
import { requireAgent } from './agents';
import { livePollers } from '../worker-presence';
import { EXPORT_FORMAT } from './show';

// The read-only commands live in ./show (no worker, no model); `trace` is registered from here.
export { EXPORT_FORMAT, exportCommand, statusCommand, traceCommand } from './show';

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
  work: (agents: Agents, target: AgentTarget) => Promise<T>,
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
    () => runtime.unwrapUpdateErrors(() => work(agents, target)),
    options,
  );
}

/** The first non-blank line of a failure's message, for a one-line report. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? text.trim()
  );
}

/** A cycle workflow's end: its result, or why it failed. */
async function cycleEnd(agents: Agents, cycleId: string): Promise<{ result?: CycleResult; failure?: string }> {
  try {
    return { result: (await agents.client.workflow.getHandle(cycleId).result()) as CycleResult };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return { failure: firstLine(errorMessage(cause ?? error)) };
  }
}

/** The lines a chat turn owes the user beside its reply: a reply cut at the cap, a memory reflect did not update. */
export function turnNotices(result: Pick<CycleResult, 'memoryUnchanged' | 'replyCut'> | undefined): string[] {
  const lines: string[] = [];
  if (result?.replyCut)
    lines.push('reply cut at the output cap (raise it: scratchpad configure --max-output respond=N)');
  if (result?.memoryUnchanged) lines.push(`memory not updated this turn: ${result.memoryUnchanged}`);
  return lines;
}

/** `scratchpad send AGENT TEXT`: one chat turn; prints the reply as soon as respond ends, exits once reflect has. */
export async function sendCommand(agentId: string, message: string, options: { json?: boolean; model?: string }) {
  const args = { message, ...(options.model !== undefined && { model: options.model }) };
  const result = await withAgent(
    agentId,
    options.model,
    async (agents, target) => {
      const answer = await agents.send(target, args);
      if (options.json) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      else if (answer.reply) process.stdout.write(`${answer.reply}\n`);
      // The reply comes before reflect (design.md, The reply first): an in-process worker stopped now would cut it
      // short, and the next command would find the cycle still running until the agent has adopted its result.
      const { result: cycle, failure } = await cycleEnd(agents, answer.cycleId);
      if (!options.json && answer.outcome !== 'completed') {
        const reason = answer.error ?? failure;
        process.stderr.write(`cycle ${answer.cycleId}: ${answer.outcome}${reason ? `: ${firstLine(reason)}` : ''}\n`);
      }
      if (!options.json) for (const line of turnNotices(cycle)) process.stderr.write(`${line}\n`);
      await adopted(agents, agentId, answer.cycleId);
      return answer;
    },
    { create: true },
  );
  return outcomeExitCode(result);
}

/**
 * Waits (30 s at most) until the agent has adopted `cycleId`'s result: an in-process worker that stopped before would
 * leave that workflow task, and the memory's update, to whichever worker comes next. With `unansweredEnds`, a status
 * query that fails ends the wait (no worker answers: nothing is left to wait for); else it is asked again.
 */
export async function adopted(
  agents: Agents,
  agentId: string,
  cycleId: string,
  options: { unansweredEnds?: boolean } = {},
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const status = await agents.status(agentId).catch(() => undefined);
    if (status ? status.running?.cycleId !== cycleId : options.unansweredEnds) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The agent a signal goes to: it must exist unless `create` (signal-with-start would start a mistyped one). */
async function signalTarget(agentId: string, create: boolean | undefined) {
  const { config, target } = await agentContext(agentId);
  const agents = new Agents(await runtime.client(config));
  if (!create) await requireAgent(agents.client, agentId);
  return { agents, target };
}

/** `scratchpad directive AGENT TEXT`: a signal; reaches the running cycle's next iteration or waits for the next cycle. */
export async function directiveCommand(agentId: string, text: string, options: { create?: boolean } = {}) {
  const refused = DirectiveTextSchema().safeParse(text);
  if (!refused.success) throw new CliError(`directive refused: ${describeIssues(refused.error)}`, EXIT.usage);
  const { agents, target } = await signalTarget(agentId, options.create);
  await agents.directive(target, text);
  process.stdout.write(`Directive sent to ${agentWorkflowId(agentId)}.\n`);
  return EXIT.ok;
}

/** `scratchpad wake AGENT`: run a task cycle if tasks are pending. */
export async function wakeCommand(agentId: string, options: { task: string[]; create?: boolean }) {
  const { agents, target } = await signalTarget(agentId, options.create);
  await agents.wake(target, { tasks: options.task, trigger: 'manual' });
  process.stdout.write(`Wake sent to ${agentWorkflowId(agentId)}.\n`);
  // A signal needs no worker to be taken, but its cycle does: say so rather than leave it waiting unseen.
  const queue = (await agents.describe(agentId))?.taskQueue ?? target.taskQueue;
  if ((await livePollers(agents.client, queue)).length === 0) {
    process.stderr.write(`No worker polls task queue "${queue}": the cycle runs once one does (npx scratchpad up).\n`);
  }
  return EXIT.ok;
}

/** A scratchpad value as people read it: text as is (indented when it has several lines), lists one item a line. */
function valueLines(value: unknown): string {
  if (value === null || value === undefined || value === '') return ' (empty)';
  if (Array.isArray(value))
    return value.length === 0 ? ' (empty)' : value.map((item) => `\n  - ${String(item)}`).join('');
  const text = String(value);
  return text.includes('\n')
    ? text
        .split('\n')
        .map((line) => `\n  ${line}`)
        .join('')
    : ` ${text}`;
}

/** `scratchpad inject AGENT SECTION TEXT`: one update key through safe apply; prints the section as it now is. */
export async function injectCommand(agentId: string, section: string, content: string, options: { model?: string }) {
  const value = await withAgent(agentId, options.model, async (agents, target) => {
    const answer = await agents.inject(target, { section: section as never, content });
    // Validated against the state of the moment; a cycle that ran before it applied may have made it inapplicable.
    if (answer.startsWith('not applied:')) throw new CliError(answer, EXIT.usage);
    const state = (await agents.scratchpad(agentId)) as unknown as Record<string, Record<string, unknown>>;
    if (!isSectionKey(section)) return state[section];
    const [part, key] = SECTION_KEYS[section] as readonly string[];
    return key === undefined ? state[part!] : state[part!]?.[key];
  });
  process.stdout.write(`${section}:${valueLines(value)}\n`);
  return EXIT.ok;
}

/** `scratchpad enqueue AGENT --task T --goal G`: add to the task queue without running a cycle. */
export async function enqueueCommand(agentId: string, options: { task: string[]; goal: string[]; model?: string }) {
  const result = await withAgent(
    agentId,
    options.model,
    (agents, target) => agents.enqueue(target, { tasks: options.task, goals: options.goal }),
    { create: true },
  );
  process.stdout.write(
    `current_task: ${result.current_task ?? '(none)'}\npending_actions: ${result.pending_actions.length}\n`,
  );
  return EXIT.ok;
}

/** Reads an export document, or a bare scratchpad in YAML or JSON; a bad one is one line naming the field. */
export async function readImport(file: string): Promise<Scratchpad> {
  let parsed: unknown;
  try {
    parsed = YAML.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${firstLine(errorMessage(error))}`, EXIT.usage);
  }
  const isExport = (parsed as { format?: string } | null)?.format === EXPORT_FORMAT;
  const body = isExport ? (parsed as { scratchpad?: unknown }).scratchpad : parsed;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const what = isExport ? 'its "scratchpad" field is not an object' : 'expected an object of scratchpad keys';
    throw new CliError(`${file} does not hold a valid scratchpad: ${what}`, EXIT.usage);
  }
  try {
    return normalizeScratchpad(body);
  } catch (error) {
    throw new CliError(`${file} does not hold a valid scratchpad: ${firstLine(errorMessage(error))}`, EXIT.usage);
  }
}

/** `scratchpad import AGENT FILE`: replaces the agent's active scratchpad. */
export async function importCommand(agentId: string, file: string, options: { model?: string }) {
  const scratchpad = await readImport(file);
  await withAgent(agentId, options.model, (agents, target) => agents.import(target, scratchpad), { create: true });
  process.stdout.write(`Imported ${file} into ${agentWorkflowId(agentId)}.\n`);
  return EXIT.ok;
}
