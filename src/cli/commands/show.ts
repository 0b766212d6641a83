import * as fs from 'node:fs/promises';
import { Agents, agentSnapshots, snapshotYaml, writeSnapshots } from '../../client';
import type { AgentStatus } from '../../core/agent/agent';
import { ZERO_USAGE } from '../../core/cycle/model';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';
import { type AgentOverview, agentMemory, readAgent } from '../../clients/agent-overview';
import { callText } from '../approval-calls';
import { CliError, EXIT } from '../errors';
import { formatScratchpad } from '../format';
import { STATES, type StateName, parseFormat } from '../options';
import * as runtime from '../runtime';
import { parseCycleWorkflowId } from '../../common/ids';
import { requireAgent, settingsLines } from './agents';
import {
  type StatusBuilds,
  buildLines,
  memoryLines,
  missingArchiveLines,
  statusBuilds,
  unknownOutcomeLines,
} from './status-lines';

// Every command here reads memos, search attributes and histories only: none needs a worker or a model.

/** The `format` an export document carries, so `import` tells it from a bare scratchpad. */
export const EXPORT_FORMAT = 'durable-scratchpad/agent-v1';

async function cycleState(agents: Agents, workflowId: string, which: StateName | undefined): Promise<Scratchpad> {
  const description = await agents.describeCycle(workflowId).catch(() => {
    throw new CliError(`no cycle workflow "${workflowId}"`);
  });
  const states = await agents.cycleStates(workflowId);
  const running = description.status.name === 'RUNNING';
  const state = which ?? (running ? 'current' : 'after');
  if (state === 'before') return states.input.before;
  if (states.result) return states.result.after;
  if (state === 'after')
    throw new CliError(`${workflowId} has not finished (${description.status.name}); try --state current`);
  // The live scratchpad exists only in the running workflow: ask it.
  return agents.currentScratchpad(workflowId);
}

async function agentState(agents: Agents, agentId: string, which: StateName | undefined): Promise<Scratchpad> {
  const cycles = await agents.listCycles(agentId);
  if (cycles.length === 0 && which !== undefined && which !== 'after') {
    throw new CliError(`no cycles found for agent "${agentId}"`);
  }
  const running = cycles.filter((cycle) => cycle.status === 'RUNNING').at(-1);
  if (which === 'current' && running) return cycleState(agents, running.workflowId, 'current');
  if (which === 'before') return cycleState(agents, (cycles.at(-1) as { workflowId: string }).workflowId, 'before');
  // The agent workflow's memo is its active scratchpad (what active.yaml holds), readable with no worker.
  const memo = await agents.memo(agentId);
  if (memo) return memo.scratchpad;
  // Before a worker first runs the agent (a fork, say), its memory is what it started with.
  return (await agentMemory(agents.client, { agentId, memo: {} })).scratchpad;
}

/** `scratchpad show`: an agent's active scratchpad, or a cycle's before / after / live state. */
export async function showCommand(id: string, options: { state?: StateName; format: string }): Promise<number> {
  if (options.state && !STATES.includes(options.state)) {
    throw new CliError(`invalid --state "${options.state}": expected one of ${STATES.join(', ')}`, EXIT.usage);
  }
  const format = parseFormat(options.format);
  const agents = new Agents(await runtime.client(runtime.config()));
  if (!parseCycleWorkflowId(id)) await requireAgent(agents.client, id);
  const state = parseCycleWorkflowId(id)
    ? await cycleState(agents, id, options.state)
    : await agentState(agents, id, options.state);
  process.stdout.write(formatScratchpad(state, format));
  return EXIT.ok;
}

/** `scratchpad snapshots AGENT --out DIR`: the snapshot files from the histories; `--out -`: one YAML stream. */
export async function snapshotsCommand(agentId: string, options: { out: string }): Promise<number> {
  const client = await runtime.client(runtime.config());
  await requireAgent(client, agentId, { orAnyRun: true });
  if (options.out === '-') {
    const snapshots = await agentSnapshots(client, agentId);
    if (snapshots.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
    process.stdout.write(snapshots.map(({ name, state }) => `--- # ${name}\n${snapshotYaml(state)}`).join(''));
    return EXIT.ok;
  }
  const files = await writeSnapshots(client, agentId, options.out);
  if (files.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
  process.stdout.write(`${files.join('\n')}\n`);
  return EXIT.ok;
}

/** What `status` shows: the status the agent recorded (or what histories tell of an older agent), visibility's now. */
interface StatusView extends AgentStatus {
  /** `RUNNING`, or how the agent workflow closed. */
  state: string;
  /** Every cycle of the agent that runs now. */
  runningCycles: string[];
  /** False for an agent whose worker records no status in its memo: usage, queue and directives are unknown. */
  recorded: boolean;
  /** The builds the agent and its running cycles are on, under Worker Versioning. */
  builds?: StatusBuilds;
}

async function statusView(agents: Agents, overview: AgentOverview): Promise<StatusView> {
  const recorded = overview.memo.status;
  const cycleId = overview.running.at(-1);
  const running = cycleId
    ? { cycleId, trigger: recorded?.running?.cycleId === cycleId ? recorded.running.trigger : 'unknown' }
    : null;
  const base: AgentStatus = recorded ?? {
    agentId: overview.agentId,
    cycleCount: (await agents.listCycles(overview.agentId)).length,
    running: null,
    queued: 0,
    heldDirectives: [],
    usage: ZERO_USAGE,
    costUsd: null,
    settings: (await agentMemory(agents.client, overview)).settings,
    runs: 1,
    notices: [],
  };
  return {
    ...base,
    running,
    approvals: overview.approvals,
    state: overview.state,
    runningCycles: overview.running,
    recorded: recorded !== undefined,
    builds: await statusBuilds(agents.client, overview.agentId, overview.running),
  };
}

async function overviewOf(agentId: string): Promise<{ agents: Agents; overview: AgentOverview }> {
  const agents = new Agents(await runtime.client(runtime.config()));
  const description = await requireAgent(agents.client, agentId);
  const overview = await readAgent(agents.client, agentId, description);
  return { agents, overview: overview as AgentOverview };
}

/** `scratchpad status AGENT`: cycles, what runs, held directives, approvals, usage, cost and settings. */
export async function statusCommand(agentId: string, options: { json?: boolean }): Promise<number> {
  const { agents, overview } = await overviewOf(agentId);
  const status = await statusView(agents, overview);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return EXIT.ok;
  }
  const approvals = status.approvals ?? [];
  const cost = status.costUsd === null ? 'unknown (a model without a known price)' : `$${status.costUsd.toFixed(4)}`;
  const now =
    status.state !== 'RUNNING'
      ? `ended (${status.state.toLowerCase()})`
      : status.running
        ? `running ${status.runningCycles.join(', ')}${status.running.trigger === 'unknown' ? '' : ` (${status.running.trigger})`}`
        : 'idle';
  const usage = status.recorded
    ? [
        `queued: ${status.queued}`,
        `held directives: ${status.heldDirectives.length ? status.heldDirectives.join(' | ') : 'none'}`,
      ]
    : [];
  const tokens = status.recorded
    ? `tokens: ${status.usage.inputTokens} input, ${status.usage.outputTokens} output, ` +
      `${status.usage.cacheReadTokens} cache read, ${status.usage.cacheWriteTokens} cache write; cost ${cost}`
    : 'tokens, cost, queue and held directives: unknown (its worker records no status for readers without one)';
  process.stdout.write(
    [
      `agent ${status.agentId}: ${status.cycleCount} cycle(s) in ${status.runs} run(s); ${now}`,
      ...usage,
      `awaiting approval: ${approvals.length === 0 ? 'nothing' : `${approvals.length} call(s) (scratchpad approve / deny)`}`,
      ...approvals.map((call) => `  ${call.callId} ${callText(call)} in ${call.cycleId} since ${call.requestedAt}`),
      ...unknownOutcomeLines(status),
      tokens,
      ...(status.fallbackModel ? [`model: the last call was answered by ${status.fallbackModel}, a fallback`] : []),
      ...memoryLines(status),
      ...missingArchiveLines(status),
      ...buildLines(status.builds),
      'settings:',
      ...settingsLines(status.settings).map((line) => `  ${line}`),
      ...(status.notices?.length ? ['notices:', ...status.notices.map((line) => `  ${line}`)] : []),
    ].join('\n') + '\n',
  );
  return EXIT.ok;
}

/** `scratchpad export AGENT`: the scratchpad and settings as JSON on stdout, in the form `import` reads. */
export async function exportCommand(agentId: string): Promise<number> {
  const { agents, overview } = await overviewOf(agentId);
  const { scratchpad, settings, origin } = await agentMemory(agents.client, overview);
  const document = {
    format: EXPORT_FORMAT,
    agentId,
    exportedAt: new Date().toISOString(),
    turn: overview.memo.status?.cycleCount ?? (await agents.listCycles(agentId)).length,
    purpose: scratchpad.identity.purpose,
    settings,
    ...(origin ? { origin } : {}),
    scratchpad,
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  return EXIT.ok;
}

/** `scratchpad trace AGENT --out FILE`: one record per cycle, read from the cycles' histories; `-` for stdout. */
export async function traceCommand(agentId: string, options: { out: string }): Promise<number> {
  const agents = new Agents(await runtime.client(runtime.config()));
  await requireAgent(agents.client, agentId, { orAnyRun: true });
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
      unknown_outcomes: states.result?.unknownOutcomes ?? [],
      missing_archives: states.result?.missingArchives ?? [],
      scratchpad_before: states.input.before,
      scratchpad_after: states.result?.after ?? null,
    });
  }
  if (turns.length === 0) throw new CliError(`no cycles found for agent "${agentId}"`);
  const text = `${JSON.stringify(turns, null, 2)}\n`;
  if (options.out === '-') {
    process.stdout.write(text);
    return EXIT.ok;
  }
  await fs.writeFile(options.out, text);
  process.stdout.write(`Wrote ${turns.length} turn(s) to ${options.out}\n`);
  return EXIT.ok;
}
