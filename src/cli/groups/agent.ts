import type { Command } from 'commander';
import {
  configureCommand,
  directiveCommand,
  enqueueCommand,
  exportCommand,
  importCommand,
  injectCommand,
  sendCommand,
  statusCommand,
  wakeCommand,
} from '../commands/agent';
import { chatCommand } from '../commands/chat';
import { CliError, EXIT } from '../errors';
import { MAX_ITERATIONS, parsePositiveInt } from '../format';
import { type Run, collect } from './run';

const WORKER_MODEL = ['--model <spec>', 'model for an in-process worker when none is running'] as const;

const DESCRIPTIONS = {
  send: 'one chat turn (respond, then reflect into the scratchpad); prints the reply',
  chat: 'interactive chat: each line is a send; /scratchpad, /directive TEXT (held for the next turn), /quit',
  directive: "steer an agent: reaches the running cycle's next iteration, or waits for the next cycle",
  wake: 'signal the agent to run a task cycle if tasks are pending (a running worker picks it up)',
  enqueue: "add tasks or goals to the agent's scratchpad without running a cycle",
  inject: 'set one scratchpad section (REPLACE, "APPEND: text" or CLEAR), e.g. identity_user',
  status: 'cycles, running cycle, held directives, token usage and cost of an agent',
  configure: 'change how an agent runs its cycles',
  export: "print an agent's scratchpad and settings as JSON (seed 001 save)",
  import: "replace an agent's scratchpad from an export (or a scratchpad YAML/JSON file)",
} as const;

/** Adds the commands that talk to an agent: chat, directives, tasks, status, settings, export and import. */
export function registerAgentCommands(program: Command, run: Run): void {
  // `worker`: the command may start an in-process worker, which takes a model.
  const command = (name: keyof typeof DESCRIPTIONS, worker = false) => {
    const created = program.command(name).description(DESCRIPTIONS[name]).argument('<agent>', 'agent id');
    return worker ? created.option(...WORKER_MODEL) : created;
  };
  command('send', true)
    .argument('<text>', 'the message')
    .option('--json', 'print reply, cycle id and outcome as JSON')
    .action(run(sendCommand));
  command('chat', true).action(run(chatCommand));
  command('directive').argument('<text>', 'the directive').action(run(directiveCommand));
  command('wake').option('--task <text>', 'task to enqueue first (repeatable)', collect, []).action(run(wakeCommand));
  command('enqueue', true)
    .option('--task <text>', 'task (repeatable)', collect, [])
    .option('--goal <text>', 'goal (repeatable)', collect, [])
    .action(run(enqueueCommand));
  command('inject', true)
    .argument('<section>', 'update key, e.g. identity_user, understanding_known, workspace')
    .argument('<text>', 'content')
    .action(run(injectCommand));
  command('status', true).option('--json', 'print as JSON').action(run(statusCommand));
  command('configure')
    .option('--cycle-model <spec>', 'model for respond and task cycles')
    .option('--reflect-model <spec>', 'model for the reflect phase (e.g. a cheaper one)')
    .option('--single-phase', 'the update rides in the response (no separate reflect call)')
    .option('--two-phase', 'respond, then reflect (default)')
    .option('--budget <chars>', 'rendered scratchpad budget before archiving', parsePositiveInt('--budget'))
    .option('--max-iterations <n>', 'model calls per cycle', parsePositiveInt('--max-iterations', MAX_ITERATIONS))
    .option('--continue-as-new-every <n>', 'cycles per workflow run', parsePositiveInt('--continue-as-new-every'))
    .action(
      run(
        (
          agent: string,
          options: {
            cycleModel?: string;
            reflectModel?: string;
            singlePhase?: boolean;
            twoPhase?: boolean;
            budget?: number;
            maxIterations?: number;
            continueAsNewEvery?: number;
          },
        ) => {
          if (options.singlePhase && options.twoPhase) {
            throw new CliError('choose --single-phase or --two-phase, not both', EXIT.usage);
          }
          return configureCommand(agent, {
            model: options.cycleModel,
            reflectModel: options.reflectModel,
            twoPhase: options.singlePhase ? false : options.twoPhase ? true : undefined,
            budgetChars: options.budget,
            maxIterations: options.maxIterations,
            continueAsNewEvery: options.continueAsNewEvery,
          });
        },
      ),
    );
  command('export', true).action(run(exportCommand));
  command('import', true).argument('<file>', 'file written by export').action(run(importCommand));
}
