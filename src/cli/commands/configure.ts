import { Option } from '@commander-js/extra-typings';
import { agentMemory, readAgent } from '../../clients/agent-overview';
import type { AgentSettings } from '../../core/agent/agent';
import { MAX_TOOL_PATTERNS } from '../../core/tools/pattern';
import { requireAgent, withAgent } from '../agent-access';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import {
  MAX_ITERATIONS,
  durationParser,
  parseHeartbeatTimeouts,
  parseOutputCaps,
  parsePositiveInt,
  parseToolPatterns,
  toolPatternParser,
} from '../options';
import * as runtime from '../runtime';
import { settingsLines } from '../settings-lines';
import { reportUnmatchedTools } from '../tool-catalogue';

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
  const client = await runtime.client(runtime.config());
  const overview = await readAgent(client, agentId, await requireAgent(client, agentId));
  printSettings((await agentMemory(client, overview!)).settings, json);
  return EXIT.ok;
}

/**
 * `--no-approve LIST`: its own list of patterns, removed from the agent's, not commander's negation of `--approve`
 * (which would set `approve` to false).
 */
function noApproveOption() {
  const option = new Option(
    '--no-approve <list>',
    "stop asking for patterns --approve added; the worker's and the tools' own approval policies cannot be waived",
  ).argParser(toolPatternParser('--no-approve'));
  option.negate = false;
  // Typed as the option it behaves as: a list under `noApprove`.
  return option as unknown as Option<'--noApprove <list>', undefined, undefined, string[]>;
}

/** `scratchpad configure AGENT ...`: change how the agent runs its cycles; with no option, show how it does. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option('--cycle-model <spec>', 'model for respond and task cycles')
      .option('--reflect-model <spec>', 'model for the reflect phase (e.g. a cheaper one)')
      .option('--single-phase', 'the update rides in the response (no separate reflect call)')
      .option('--two-phase', 'respond, then reflect (default)')
      .option('--budget <chars>', 'rendered scratchpad budget before archiving', parsePositiveInt('--budget'))
      .option('--max-iterations <n>', 'model calls per cycle', parsePositiveInt('--max-iterations', MAX_ITERATIONS))
      .option('--continue-as-new-every <n>', 'cycles per workflow run', parsePositiveInt('--continue-as-new-every'))
      .option('--tools <list>', "tools offered, by name or glob: 'fs_*,web_fetch,github__*'", parseToolPatterns)
      .option('--all-tools', 'offer the default again: the built-ins and every tool the worker has')
      .option(
        '--approve <list>',
        "also ask a person before these tools run, by name or glob: 'shell,github__delete_*'",
        toolPatternParser('--approve'),
      )
      .addOption(noApproveOption())
      .option(
        '--approval-timeout <duration>',
        'how long a call waits for a decision before it is denied (default 24h)',
        durationParser('--approval-timeout'),
      )
      .option(
        '--max-output <caps>',
        'most output tokens per model call, by phase: respond=1024,reflect=1024,task=2048 (the defaults), or one number',
        parseOutputCaps,
      )
      .option(
        '--heartbeat-timeout <seconds>',
        "how soon a dead worker's call moves to another worker, by kind: model=4,tool=4,verification=4 (the defaults), or one number",
        parseHeartbeatTimeouts,
      )
      .option('--create', 'start the agent with these settings when it does not exist')
      .option('--json', 'print the settings as JSON'),
  async (agentId, options) => {
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
    if (options.tools) await reportUnmatchedTools(options.tools);
    return EXIT.ok;
  },
);
