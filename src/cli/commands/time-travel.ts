import * as os from 'node:os';
import {
  Agents,
  type MemoryDiff,
  TimeTravelError,
  agentWorkflowId,
  cycleWorkflowId,
  diffCycles,
  forkAgent,
  rewindAgent,
} from '../../client';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { agentContext, onAgentQueue } from './agent';
import { requireAgent } from './agents';

/** Runs a time-travel request, its refusals (unknown agent or cycle, a cycle not finished) as one-line errors. */
async function travel<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TimeTravelError) throw new CliError(error.message);
    throw error;
  }
}

/** The diff as people read it: a heading line, then each changed part with its lines, `-` removed and `+` added. */
export function formatDiff(diff: MemoryDiff): string {
  const { from, to, sections } = diff;
  const added = sections.reduce((sum, part) => sum + part.changes.filter((line) => line.op === '+').length, 0);
  const removed = sections.reduce((sum, part) => sum + part.changes.filter((line) => line.op === '-').length, 0);
  const heading = `${from.cycleId} ${from.state} → ${to.cycleId} ${to.state}`;
  if (sections.length === 0) return `${heading}: no change\n`;
  const summary = `${sections.length} part(s) changed, ${added} line(s) added, ${removed} removed`;
  const parts = sections.map(({ section, part, changes }) =>
    [`## ${part ? `${section} / ${part}` : section}`, ...changes.map((line) => `${line.op} ${line.text}`)].join('\n'),
  );
  return `${heading}: ${summary}\n\n${parts.join('\n\n')}\n`;
}

/** `scratchpad diff AGENT A [B]`: from histories alone; no worker, no model. */
export async function diffCommand(agentId: string, a: string, b: string | undefined, options: { json?: boolean }) {
  const { config } = await agentContext(agentId);
  const client = await runtime.client(config);
  await requireAgent(client, agentId, { orAnyRun: true });
  const diff = await travel(() => diffCycles(client, agentId, a, b));
  process.stdout.write(options.json ? `${JSON.stringify(diff, null, 2)}\n` : formatDiff(diff));
  return EXIT.ok;
}

/** `scratchpad fork AGENT --at CYCLE --as NEW`: a new agent whose memory is that cycle's after-state. */
export async function forkCommand(agentId: string, options: { at: string; as: string; json?: boolean }) {
  const { config } = await agentContext(agentId);
  await agentContext(options.as);
  const client = await runtime.client(config);
  await requireAgent(client, agentId, { orAnyRun: true });
  const fork = await travel(() => forkAgent(client, { agentId, at: options.at, as: options.as }));
  const { handle: _handle, ...shown } = fork;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  } else {
    const cycleId = cycleWorkflowId(agentId, fork.origin.cycle);
    process.stdout.write(
      `Forked ${fork.workflowId} from ${cycleId}'s after-state (task queue "${fork.taskQueue}"); ` +
        `\`scratchpad export ${fork.agentId}\` records its origin.\n`,
    );
  }
  return EXIT.ok;
}

/** Who rewinds, as the agent records it: the user and host of this command. */
function rewoundBy(): string {
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    return `scratchpad rewind@${os.hostname()}`;
  }
}

/** `scratchpad rewind AGENT --to CYCLE`: the agent continues from that cycle's after-state; refused while one runs. */
export async function rewindCommand(agentId: string, options: { to: string; json?: boolean; model?: string }) {
  const context = await agentContext(agentId);
  const client = await runtime.client(context.config);
  await requireAgent(client, agentId, { orAnyRun: true });
  const spec = runtime.inProcessModel(context.config, options.model);
  const agents = new Agents(client);
  const { config, target } = await onAgentQueue(agents, context.config, context.target);
  const record = await runtime.withWorker(client, config, spec, agentWorkflowId(agentId), () =>
    runtime.unwrapUpdateErrors(() => travel(() => rewindAgent(agents, target, options.to, rewoundBy()))),
  );
  if (options.json) {
    process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
  } else {
    process.stdout.write(
      `Rewound ${agentWorkflowId(agentId)} to cycle ${record.to}'s after-state (recorded at ${record.at} ` +
        `by ${record.by}); later cycles stay in history.\n`,
    );
  }
  return EXIT.ok;
}
