import type { AgentOverview } from '../../clients/agent-overview';
import { agentMemory } from '../../clients/agent-overview';
import type { Agents } from '../../clients/agents';
import type { AgentStatus } from '../../core/agent/agent';
import { ZERO_USAGE } from '../../core/cycle/model';
import { overviewOf } from '../agent-access';
import { callText } from '../approval-calls';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import { settingsLines } from '../settings-lines';
import {
  type StatusBuilds,
  buildLines,
  memoryLines,
  missingArchiveLines,
  statusBuilds,
  unknownOutcomeLines,
} from '../status-lines';

// The agent's memo and visibility: no worker needed.

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

/** `scratchpad status AGENT`: cycles, what runs, held directives, approvals, usage, cost and settings. */
export default defineCommand(
  (command) => command.argument('<agent>', 'agent id').option('--json', 'print as JSON'),
  async (agentId, options) => {
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
  },
);
