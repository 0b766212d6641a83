import { type Command, Option } from 'commander';
import { CliError, EXIT } from '../errors';
import { parsePositiveInt } from '../format';
import { stagedCommand } from './staged';
import { stagedDemoCommand } from './staged-demo';

type Run = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;

function parseCount(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 10) {
      throw new CliError(`invalid ${name} "${value}": expected an integer from 0 to 10`, EXIT.usage);
    }
    return parsed;
  };
}

export const STAGED_HELP = `
A staged run: with --staged (or a task that looks like service, API, database or dependency work, unless
--no-staged) a plan-only turn first, then each stage as a cycle with fresh context and a cap on written paths;
a stage that changes nothing is corrected; then --verify runs in the sandbox, with repair stages while it fails.
Exit codes: 0 verified (verification ran and passed); 3 failed (still failing after the repairs, or a stage
failed); 5 unverified (the stages finished but no --verify command checked them); 1 error; 2 bad usage.`;

/** Adds `staged` and `staged demo` to the program. */
export function registerStagedCommands(program: Command, run: Run): void {
  const staged = program
    .command('staged')
    .description('run a task in verified stages: plan, small stages, verification, repairs (seed 004)')
    .option('--agent <id>', 'agent id (required)')
    .option('--task <text>', 'the task (required)')
    .option('--verify <cmd>', 'shell command run confined in the sandbox after the stages, e.g. "node --test"')
    .option('--staged', 'always start with a plan-only turn')
    .option('--no-staged', 'never plan; run the task as one stage')
    .option('--max-paths <n>', 'paths one stage may write (default 3)', parsePositiveInt('--max-paths'))
    .option('--max-repairs <n>', 'repair stages after a failing verification (default 2)', parseCount('--max-repairs'))
    .addOption(new Option('--prior-scratchpad <path|last>', "a file, or 'last' for the agent's previous run's notes"))
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', STAGED_HELP)
    .action(
      run(async (options: Record<string, unknown>) => {
        if (typeof options.agent !== 'string' || typeof options.task !== 'string') {
          throw new CliError('staged needs --agent ID and --task TEXT (or: scratchpad staged demo)', EXIT.usage);
        }
        return stagedCommand({ ...options, agent: options.agent, task: options.task });
      }),
    );
  staged
    .command('demo')
    .description('offline: a scripted model builds a Node module with node:test tests; node --test verifies it')
    .action(run(() => stagedDemoCommand()));
}
