import { type CommandEntry, command } from './command-group';

/**
 * The commands that talk to an agent: chat, directives, tasks, status, settings, export and import, memory time
 * travel (diff, fork, rewind), and `agents list` / `agents delete`.
 */
export const AGENT_COMMANDS: readonly CommandEntry[] = [
  command(
    'send',
    '[options] <agent> <text>',
    'one chat turn (respond, then reflect into the scratchpad); prints the reply as it is written; Ctrl-C cancels it',
    () => import('../commands/send'),
  ),
  command(
    'chat',
    '[options] <agent>',
    'interactive chat: each line is a send; /scratchpad, /directive TEXT (held for the next turn), /quit',
    () => import('../commands/chat'),
  ),
  command(
    'directive',
    '[options] <agent> <text>',
    "steer an agent: reaches the running cycle's next iteration, or waits for the next cycle",
    () => import('../commands/directive'),
  ),
  command(
    'wake',
    '[options] <agent>',
    'signal the agent to run a task cycle if tasks are pending (a running worker picks it up); --follow shows it',
    () => import('../commands/wake'),
  ),
  command(
    'enqueue',
    '[options] <agent>',
    "add tasks or goals to the agent's scratchpad without running a cycle",
    () => import('../commands/enqueue'),
  ),
  command(
    'inject',
    '[options] <agent> <section> <text>',
    'set one scratchpad section (REPLACE, "APPEND: text" or CLEAR), e.g. identity_user',
    () => import('../commands/inject'),
  ),
  command(
    'status',
    '[options] <agent>',
    'cycles, what runs, held directives, approvals, token usage, cost and settings of an agent (no worker needed)',
    () => import('../commands/status'),
  ),
  command(
    'configure',
    '[options] <agent>',
    'change how an agent runs its cycles: models, budget, tools, which tools ask a person first; alone, show them',
    () => import('../commands/configure'),
  ),
  command(
    'export',
    '<agent>',
    "print an agent's scratchpad and settings as JSON, for import (no worker needed)",
    () => import('../commands/export'),
  ),
  command(
    'import',
    '[options] <agent> <file>',
    "replace an agent's scratchpad from an export (or a scratchpad YAML/JSON file)",
    () => import('../commands/import'),
  ),
  {
    name: 'agents',
    description: 'list and delete agents (no worker needed)',
    subcommands: [
      command(
        'list',
        '[options]',
        'every agent of the namespace, the most recently active first: cycles, last outcome, approvals',
        () => import('../commands/agents/list'),
      ),
      command(
        'delete',
        '[options] <agent>',
        'end an agent: its schedules, its workflow and its running cycles and staged runs (terminated)',
        () => import('../commands/agents/delete'),
      ),
    ],
  },
  command(
    'diff',
    '[options] <agent> <a> [b]',
    "an agent's memory between cycles, section by section, from histories (no worker, no model call)",
    () => import('../commands/diff'),
  ),
  command(
    'fork',
    '[options] <agent>',
    "start a new agent whose memory is one cycle's after-state; its export records the origin (no model call)",
    () => import('../commands/fork'),
  ),
  command(
    'rewind',
    '[options] <agent>',
    "continue an agent from one cycle's after-state (refused while a cycle runs); the rewind is recorded",
    () => import('../commands/rewind'),
  ),
];
