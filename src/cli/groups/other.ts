import { type CommandEntry, command } from './command-group';

/** Durable approvals: list the calls waiting for a person, approve or deny one. */
export const APPROVAL_COMMANDS: readonly CommandEntry[] = [
  command(
    'approvals',
    '[options] [agent]',
    'tool calls waiting for a decision, across agents, research workers and stages (visibility)',
    () => import('../commands/approvals'),
  ),
  command(
    'approve',
    '[options] <agent> [callId]',
    'let a waiting tool call run, as the model gave it or with edited arguments',
    () => import('../commands/approve'),
  ),
  command(
    'deny',
    '[options] <agent> [callId]',
    'refuse a waiting tool call; the model sees "denied by <who>: <reason>"',
    () => import('../commands/deny'),
  ),
];

/** `staged` and `staged demo`. */
export const STAGED_COMMANDS: readonly CommandEntry[] = [
  {
    ...command(
      'staged',
      '[options] [agent]',
      'run a task in verified stages: plan, small stages, verification, repairs; shows each stage',
      () => import('../commands/staged'),
    ),
    subcommands: [
      command(
        'demo',
        '',
        'offline: a scripted model builds a Node module with node:test tests; node --test verifies it',
        () => import('../demo/staged-demo'),
      ),
    ],
  },
];

/** `research …`: a research run on the typed board (design.md, The research board). */
export const RESEARCH_COMMANDS: readonly CommandEntry[] = [
  {
    name: 'research',
    description: 'research runs: a supervisor, workers and a board where only verified facts reach the answer',
    subcommands: [
      command(
        'start',
        '[options] <question>',
        'start a run; prints the STRATEGY (planned from the question when --entities or --fields is left out), ' +
          'entries as they land, then the answer with its citations; exits 6 when the run ends incomplete',
        () => import('../commands/research/start'),
      ),
      command('board', '[options] <run>', "print a run's board", () => import('../commands/research/board')),
      command(
        'directive',
        '<run> <text>',
        'send a user directive to a running run; the supervisor revises STRATEGY without stopping workers',
        () => import('../commands/research/directive'),
      ),
      command(
        'list',
        '[options]',
        "list the research runs of this task queue (SCRATCHPAD_TASK_QUEUE, and the research demo's) and their outcome",
        () => import('../commands/research/list'),
      ),
      command(
        'demo',
        '',
        'offline demo: a scripted supervisor plans the question, scripted workers research a fixture web',
        () => import('../demo/research-demo'),
      ),
    ],
  },
];

/** `console` and `codec-server`: what a browser reads. */
export const CODEC_SERVER_COMMANDS: readonly CommandEntry[] = [
  command(
    'console',
    '[options]',
    "a local web app: each agent's memory, every cycle's calls and what it changed in memory, approvals, research " +
      'and staged runs; reads with no worker running; token, loopback by default',
    () => import('../commands/console'),
  ),
  command(
    'codec-server',
    '[options]',
    "decrypt payloads for the Temporal Web UI (Temporal's codec-server protocol): token required, CORS for the UI " +
      'only, loopback by default',
    () => import('../commands/codec-server'),
  ),
];

/** `schedule …`: Temporal Schedules that wake an agent. */
export const SCHEDULE_COMMANDS: readonly CommandEntry[] = [
  {
    name: 'schedule',
    description: 'wake an agent on a Temporal Schedule (same memory as chat turns)',
    subcommands: [
      command(
        'create',
        '[options] <agent>',
        'create a schedule that wakes the agent with its tasks (overlapping wakes are skipped)',
        () => import('../commands/schedule/create'),
      ),
      command(
        'list',
        '[options] [agent]',
        'list schedules: id, spec, next run, paused, recent actions',
        () => import('../commands/schedule/list'),
      ),
      command('pause', '[options] <id>', 'stop firing', () => import('../commands/schedule/pause')),
      command('unpause', '[options] <id>', 'resume firing', () => import('../commands/schedule/unpause')),
      command('trigger', '<id>', 'fire once now', () => import('../commands/schedule/trigger')),
      command('delete', '<id>', 'delete the schedule', () => import('../commands/schedule/delete')),
    ],
  },
];
