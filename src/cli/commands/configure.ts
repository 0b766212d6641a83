import type { AgentSettings } from '../../core/agent/agent';
import type { OutputCaps } from '../../core/cycle/output-caps';
import type { HeartbeatTimeouts } from '../../core/cycle/liveness';
import { MAX_TOOL_PATTERNS } from '../../core/tools/pattern';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { withAgent } from './agent';
import { requireAgent, settingsLines } from './agents';

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
  approve?: string[];
  noApprove?: string[];
  approvalTimeout?: number;
  maxOutput?: OutputCaps;
  heartbeatTimeout?: HeartbeatTimeouts;
  /** Start the agent with these settings when it does not exist yet. */
  create?: boolean;
  json?: boolean;
}

/**
 * The agent's `approve` patterns with `add` added and `remove` taken out, in order, without repeats. Patterns in
 * `remove` that the agent does not have are returned apart: they come from elsewhere (the worker's defaults, a
 * tool's own policy), which an agent's settings cannot waive.
 */
export function editApprovePatterns(
  current: readonly string[] | null | undefined,
  add: readonly string[] = [],
  remove: readonly string[] = [],
): { approve: string[]; notRemoved: string[] } {
  const both = add.filter((pattern) => remove.includes(pattern));
  if (both.length > 0) throw new CliError(`both --approve and --no-approve name ${both.join(', ')}`, EXIT.usage);
  const kept = [...new Set([...(current ?? []), ...add])];
  const approve = kept.filter((pattern) => !remove.includes(pattern));
  if (approve.length > MAX_TOOL_PATTERNS) {
    throw new CliError(`an agent's approve setting holds at most ${MAX_TOOL_PATTERNS} patterns`, EXIT.usage);
  }
  return { approve, notRemoved: remove.filter((pattern) => !kept.includes(pattern)) };
}

/** The settings as `configure` prints them: one `key: value` a line, or JSON with `--json`. */
function printSettings(settings: AgentSettings, json: boolean | undefined): void {
  process.stdout.write(json ? `${JSON.stringify(settings, null, 2)}\n` : `${settingsLines(settings).join('\n')}\n`);
}

/** `scratchpad configure AGENT`: the agent's settings as it last recorded them; no worker needed. */
async function showSettings(agentId: string, json: boolean | undefined): Promise<number> {
  const { readAgent, agentMemory } = await import('../../clients/agent-overview');
  const client = await runtime.client(runtime.config());
  const overview = await readAgent(client, agentId, await requireAgent(client, agentId));
  printSettings((await agentMemory(client, overview!)).settings, json);
  return EXIT.ok;
}

/** `scratchpad configure AGENT ...`: change how the agent runs its cycles; with no option, show how it does. */
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
    approvalTimeoutMs: options.approvalTimeout,
  };
  if (options.allTools && options.tools) throw new CliError('choose --tools or --all-tools, not both', EXIT.usage);
  const editsApprove = options.approve !== undefined || options.noApprove !== undefined;
  if (editsApprove) editApprovePatterns([], options.approve, options.noApprove);
  const changes = Object.fromEntries(Object.entries(requested).filter(([, value]) => value !== undefined));
  const editsCaps = options.maxOutput !== undefined || options.heartbeatTimeout !== undefined;
  if (Object.keys(changes).length === 0 && !editsApprove && !editsCaps) {
    if (options.create) throw new CliError('--create needs settings to start the agent with', EXIT.usage);
    return showSettings(agentId, options.json);
  }
  let notRemoved: string[] = [];
  // The cycle model is also the model of an in-process worker, should this command need one.
  const settings = await withAgent(
    agentId,
    options.cycleModel,
    async (agents, target) => {
      if (editsApprove) {
        // The update replaces the list: start from the agent's own (none yet for an agent this call starts).
        const running = (await agents.describe(agentId))?.status.name === 'RUNNING';
        const current = running ? (await agents.status(agentId)).settings.approve : [];
        const edited = editApprovePatterns(current, options.approve, options.noApprove);
        notRemoved = edited.notRemoved;
        changes.approve = edited.approve;
      }
      if (editsCaps) {
        // The update replaces each map: the phases and kinds not named keep the agent's own.
        const running = (await agents.describe(agentId))?.status.name === 'RUNNING';
        const current = running ? (await agents.status(agentId)).settings : undefined;
        if (options.maxOutput) changes.maxOutputTokens = { ...current?.maxOutputTokens, ...options.maxOutput };
        if (options.heartbeatTimeout) {
          changes.heartbeatTimeoutMs = { ...current?.heartbeatTimeoutMs, ...options.heartbeatTimeout };
        }
      }
      return agents.configure(target, changes);
    },
    { create: options.create },
  );
  printSettings(settings, options.json);
  if (notRemoved.length > 0) {
    process.stderr.write(
      `Warning: ${notRemoved.join(', ')} not in the agent's approve setting: the worker's and the tools' own ` +
        'approval policies cannot be waived per agent.\n',
    );
  }
  if (options.tools) await (await import('./tools')).reportUnmatchedTools(options.tools);
  return EXIT.ok;
}
