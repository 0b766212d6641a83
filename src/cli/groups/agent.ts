import { type Command, Option } from 'commander';
import {
  MAX_ITERATIONS,
  collect,
  durationParser,
  parseHeartbeatTimeouts,
  parseOutputCaps,
  parsePositiveInt,
  parseToolPatterns,
  toolPatternParser,
} from '../options';
import type { LazyAction } from './command-group';

const WORKER_MODEL = [
  '--model <spec>',
  "a chat turn's model (the worker must allow it); else the model of an in-process worker",
] as const;

const DESCRIPTIONS = {
  send: 'one chat turn (respond, then reflect into the scratchpad); prints the reply',
  chat: 'interactive chat: each line is a send; /scratchpad, /directive TEXT (held for the next turn), /quit',
  directive: "steer an agent: reaches the running cycle's next iteration, or waits for the next cycle",
  wake: 'signal the agent to run a task cycle if tasks are pending (a running worker picks it up); --follow shows it',
  enqueue: "add tasks or goals to the agent's scratchpad without running a cycle",
  inject: 'set one scratchpad section (REPLACE, "APPEND: text" or CLEAR), e.g. identity_user',
  status:
    'cycles, what runs, held directives, approvals, token usage, cost and settings of an agent (no worker needed)',
  configure:
    'change how an agent runs its cycles: models, budget, tools, which tools ask a person first; alone, show them',
  export: "print an agent's scratchpad and settings as JSON, for import (no worker needed)",
  import: "replace an agent's scratchpad from an export (or a scratchpad YAML/JSON file)",
  diff: "an agent's memory between cycles, section by section, from histories (no worker, no model call)",
  fork: "start a new agent whose memory is one cycle's after-state; its export records the origin (no model call)",
  rewind: "continue an agent from one cycle's after-state (refused while a cycle runs); the rewind is recorded",
} as const;

/**
 * Adds the commands that talk to an agent: chat, directives, tasks, status, settings, export and import, memory time
 * travel (diff, fork, rewind), and `agents list` / `agents delete`.
 */
export function registerAgentCommands(program: Command, action: LazyAction): void {
  const agent = () => import('../commands/agent');
  // `worker`: the command may start an in-process worker, which takes a model.
  const command = (name: keyof typeof DESCRIPTIONS, worker = false) => {
    const created = program.command(name).description(DESCRIPTIONS[name]).argument('<agent>', 'agent id');
    return worker ? created.option(...WORKER_MODEL) : created;
  };
  command('send', true)
    .argument('<text>', 'the message')
    .option('--json', 'print reply, cycle id and outcome as JSON')
    .action(action(agent, 'sendCommand'));
  command('chat', true).action(action(() => import('../commands/chat'), 'chatCommand'));
  const create = [
    '--create',
    'start the agent when it does not exist (otherwise an unknown agent is an error)',
  ] as const;
  command('directive')
    .argument('<text>', 'the directive')
    .option(...create)
    .action(action(agent, 'directiveCommand'));
  command('wake', true)
    .option(...create)
    .option('--task <text>', 'task to enqueue first (repeatable)', collect, [])
    .option('--follow', 'show the cycle the wake starts, step by step, until its outcome (or that none started)')
    .action(action(() => import('../commands/wake'), 'wakeCommand'));
  command('enqueue', true)
    .option('--task <text>', 'task (repeatable)', collect, [])
    .option('--goal <text>', 'goal (repeatable)', collect, [])
    .action(action(agent, 'enqueueCommand'));
  command('inject', true)
    .argument('<section>', 'update key, e.g. identity_user, understanding_known, workspace')
    .argument('<text>', 'content')
    .action(action(agent, 'injectCommand'));
  const read = () => import('../commands/show');
  command('status').option('--json', 'print as JSON').action(action(read, 'statusCommand'));
  // Not commander's negation of --approve: its own list, removed from the agent's.
  const noApprove = new Option(
    '--no-approve <list>',
    "stop asking for patterns --approve added; the worker's and the tools' own approval policies cannot be waived",
  ).argParser(toolPatternParser('--no-approve'));
  noApprove.negate = false;
  command('configure')
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
    .addOption(noApprove)
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
    .option('--json', 'print the settings as JSON')
    .action(action(() => import('../commands/configure'), 'configureCommand'));
  command('export').action(action(read, 'exportCommand'));
  command('import', true).argument('<file>', 'file written by export').action(action(agent, 'importCommand'));
  const agents = program.command('agents').description('list and delete agents (no worker needed)');
  agents
    .command('list')
    .description('every agent of the namespace, the most recently active first: cycles, last outcome, approvals')
    .option('--json', 'print as JSON')
    .action(action(() => import('../commands/agents'), 'agentsListCommand'));
  agents
    .command('delete')
    .description('end an agent: its schedules, its workflow and its running cycles and staged runs (terminated)')
    .argument('<agent>', 'agent id')
    .option('--purge', 'also delete its stored observations (SCRATCHPAD_OBSERVATIONS); histories stay')
    .action(action(() => import('../commands/agents'), 'agentsDeleteCommand'));
  const travel = () => import('../commands/time-travel');
  command('diff')
    .argument('<a>', 'a cycle (number or id); alone: its before-state against its after-state')
    .argument('[b]', 'another cycle: the after-state of <a> against the after-state of <b>')
    .option('--json', 'print the changed parts and their lines as JSON')
    .action(action(travel, 'diffCommand'));
  command('fork')
    .requiredOption('--at <cycle>', 'the cycle (number or id) whose after-state the new agent starts from')
    .requiredOption('--as <agent>', 'the new agent id (not used before)')
    .option('--json', 'print the new agent, its origin and task queue as JSON')
    .action(action(travel, 'forkCommand'));
  command('rewind', true)
    .requiredOption('--to <cycle>', 'the cycle (number or id) whose after-state the agent continues from')
    .option('--json', 'print the recorded rewind as JSON')
    .action(action(travel, 'rewindCommand'));
}
