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
import { parsePositiveInt } from '../format';
import { type Run, collect } from './run';

/** Adds the commands that talk to an agent: chat, directives, tasks, status, settings, export and import. */
export function registerAgentCommands(program: Command, run: Run): void {
  program
    .command('send')
    .description('one chat turn (respond, then reflect into the scratchpad); prints the reply')
    .argument('<agent>', 'agent id')
    .argument('<text>', 'the message')
    .option('--json', 'print reply, cycle id and outcome as JSON')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(sendCommand));
  program
    .command('chat')
    .description('interactive chat: each line is a send; /scratchpad, /directive TEXT (held for the next turn), /quit')
    .argument('<agent>', 'agent id')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(chatCommand));
  program
    .command('directive')
    .description("steer an agent: reaches the running cycle's next iteration, or waits for the next cycle")
    .argument('<agent>', 'agent id')
    .argument('<text>', 'the directive')
    .action(run(directiveCommand));
  program
    .command('wake')
    .description('signal the agent to run a task cycle if tasks are pending (a running worker picks it up)')
    .argument('<agent>', 'agent id')
    .option('--task <text>', 'task to enqueue first (repeatable)', collect, [])
    .action(run(wakeCommand));
  program
    .command('enqueue')
    .description("add tasks or goals to the agent's scratchpad without running a cycle")
    .argument('<agent>', 'agent id')
    .option('--task <text>', 'task (repeatable)', collect, [])
    .option('--goal <text>', 'goal (repeatable)', collect, [])
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(enqueueCommand));
  program
    .command('inject')
    .description('set one scratchpad section (REPLACE, "APPEND: text" or CLEAR), e.g. identity_user')
    .argument('<agent>', 'agent id')
    .argument('<section>', 'update key, e.g. identity_user, understanding_known, workspace')
    .argument('<text>', 'content')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(injectCommand));
  program
    .command('status')
    .description('cycles, running cycle, held directives, token usage and cost of an agent')
    .argument('<agent>', 'agent id')
    .option('--json', 'print as JSON')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(statusCommand));
  program
    .command('configure')
    .description('change how an agent runs its cycles')
    .argument('<agent>', 'agent id')
    .option('--cycle-model <spec>', 'model for respond and task cycles')
    .option('--reflect-model <spec>', 'model for the reflect phase (e.g. a cheaper one)')
    .option('--single-phase', 'the update rides in the response (no separate reflect call)')
    .option('--two-phase', 'respond, then reflect (default)')
    .option('--budget <chars>', 'rendered scratchpad budget before archiving', parsePositiveInt('--budget'))
    .option('--max-iterations <n>', 'model calls per cycle', parsePositiveInt('--max-iterations'))
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
  program
    .command('export')
    .description("print an agent's scratchpad and settings as JSON (seed 001 save)")
    .argument('<agent>', 'agent id')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(exportCommand));
  program
    .command('import')
    .description("replace an agent's scratchpad from an export (or a scratchpad YAML/JSON file)")
    .argument('<agent>', 'agent id')
    .argument('<file>', 'file written by export')
    .option('--model <spec>', 'model for an in-process worker when none is running')
    .action(run(importCommand));
}
