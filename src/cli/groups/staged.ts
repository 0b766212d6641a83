import { type Command, Option } from 'commander';
import { parseCount, parsePositiveInt } from '../options';
import type { LazyAction } from './command-group';

const STAGED_HELP = `
A staged run: with --staged (or a task that looks like service, API, database or dependency work, unless
--no-staged) a plan-only turn first, then each stage as a cycle with fresh context and a cap on written paths;
a stage that changes nothing is corrected; then --verify runs in the sandbox, with repair stages while it fails.
Exit codes: 0 verified (verification ran and passed); 3 failed (still failing after the repairs, or a stage
failed); 5 unverified (the stages finished but no --verify command checked them); 1 error; 2 bad usage.
Each stage's steps are shown on stderr as they happen; --json prints only the result. The agent is the AGENT
argument or --agent (\`scratchpad staged demo\` is the demo, not an agent named demo).`;

/** Adds `staged` and `staged demo` to the program. */
export function registerStagedCommands(program: Command, action: LazyAction): void {
  const staged = program
    .command('staged')
    .description('run a task in verified stages: plan, small stages, verification, repairs; shows each stage')
    .argument('[agent]', 'agent id (or --agent)')
    .option('--agent <id>', 'agent id: the same as the AGENT argument')
    .option('--task <text>', 'the task (required)')
    .option('--verify <cmd>', 'shell command run confined in the sandbox after the stages, e.g. "node --test"')
    .option('--staged', 'always start with a plan-only turn')
    .option('--no-staged', 'never plan; run the task as one stage')
    .option('--max-paths <n>', 'paths one stage may write (default 3)', parsePositiveInt('--max-paths'))
    .option('--max-repairs <n>', 'repair stages after a failing verification (default 2)', parseCount('--max-repairs'))
    .addOption(new Option('--prior-scratchpad <path|last>', "a file, or 'last' for the agent's previous run's notes"))
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option('--json', 'print only the result, as JSON (no progress)')
    .addHelpText('after', STAGED_HELP)
    .action(action(() => import('../commands/staged'), 'stagedCommand'));
  staged
    .command('demo')
    .description('offline: a scripted model builds a Node module with node:test tests; node --test verifies it')
    .action(action(() => import('../demo/staged-demo'), 'stagedDemoCommand'));
}
