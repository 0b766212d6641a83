import { Option } from '@commander-js/extra-typings';
import { StagedRuns } from '../../clients/staged-runs';
import type { StagedInput, StagedResult } from '../../core/staged/input';
import { stagedWorkflowId } from '../../common/ids';
import { agentContext } from '../agent-access';
import { agentFrom, resolvePriorScratchpad } from '../agent-runs';
import { defineCommand } from '../command';
import { CliError, EXIT, stagedExitCode } from '../errors';
import { followStaged } from '../follow';
import { parseCount, parsePositiveInt } from '../options';
import * as runtime from '../runtime';
import { describeStaged } from '../staged-result';

const STAGED_HELP = `
A staged run: with --staged (or a task that looks like service, API, database or dependency work, unless
--no-staged) a plan-only turn first, then each stage as a cycle with fresh context and a cap on written paths;
a stage that changes nothing is corrected; then --verify runs in the sandbox, with repair stages while it fails.
Exit codes: 0 verified (verification ran and passed); 3 failed (still failing after the repairs, or a stage
failed); 5 unverified (the stages finished but no --verify command checked them); 1 error; 2 bad usage.
Each stage's steps are shown on stderr as they happen; --json prints only the result. The agent is the AGENT
argument or --agent (\`scratchpad staged demo\` is the demo, not an agent named demo).`;

/** `scratchpad staged AGENT`: a staged run of one task, followed stage by stage; the exit code says how it ended. */
export default defineCommand(
  (command) =>
    command
      .argument('[agent]', 'agent id (or --agent)')
      .option('--agent <id>', 'agent id: the same as the AGENT argument')
      .option('--task <text>', 'the task (required)')
      .option('--verify <cmd>', 'shell command run confined in the sandbox after the stages, e.g. "node --test"')
      .option('--staged', 'always start with a plan-only turn')
      .option('--no-staged', 'never plan; run the task as one stage')
      .option('--max-paths <n>', 'paths one stage may write (default 3)', parsePositiveInt('--max-paths'))
      .option(
        '--max-repairs <n>',
        'repair stages after a failing verification (default 2)',
        parseCount('--max-repairs'),
      )
      .addOption(new Option('--prior-scratchpad <path|last>', "a file, or 'last' for the agent's previous run's notes"))
      .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
      .option('--json', 'print only the result, as JSON (no progress)')
      .addHelpText('after', STAGED_HELP),
  async (agentArgument, flags) => {
    const agent = agentFrom(agentArgument, flags.agent, 'staged');
    if (typeof flags.task !== 'string') {
      throw new CliError('staged needs AGENT and --task TEXT (or: scratchpad staged demo)', EXIT.usage);
    }
    const options = { ...flags, agent, task: flags.task };
    const context = await agentContext(options.agent);
    const spec = runtime.inProcessModel(context.config, options.model);
    const client = await runtime.client(context.config);
    const runs = new StagedRuns(client);
    const { config } = context;
    const input: StagedInput = {
      agentId: options.agent,
      task: options.task,
      ...(options.verify !== undefined ? { verify: options.verify } : {}),
      ...(options.staged !== undefined ? { staged: options.staged } : {}),
      ...(options.maxPaths !== undefined ? { maxPaths: options.maxPaths } : {}),
      ...(options.maxRepairs !== undefined ? { maxRepairs: options.maxRepairs } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
    };
    if (options.priorScratchpad !== undefined) {
      input.priorScratchpad = await resolvePriorScratchpad(runs, options.agent, options.priorScratchpad);
    }
    if (options.verify === undefined) {
      process.stderr.write(
        'No verification command (--verify): verification will not run, so the best outcome is "unverified" ' +
          `(exit code ${EXIT.unverified}).\n`,
      );
    }
    const n = (await runs.lastNumber(options.agent)) + 1;
    const workflowId = stagedWorkflowId(options.agent, n);
    if (!options.json) process.stderr.write(`Running ${workflowId}…\n`);
    const abort = new AbortController();
    const following = options.json
      ? Promise.resolve()
      : followStaged(client, workflowId, { signal: abort.signal }).catch((error: unknown) => {
          if (!abort.signal.aborted) process.stderr.write(`(progress unavailable: ${String(error)})\n`);
        });
    let result: StagedResult;
    try {
      result = await runtime.withWorker(client, config, spec, workflowId, async () => {
        await runs.start(input, { taskQueue: config.SCRATCHPAD_TASK_QUEUE, n });
        return runs.result(workflowId);
      });
    } catch (error) {
      abort.abort();
      await following;
      throw error;
    }
    // The run has closed: its history is complete, so what is left to print comes at once.
    const grace = setTimeout(() => abort.abort(), 10_000);
    await following;
    clearTimeout(grace);
    if (options.json) process.stdout.write(`${JSON.stringify({ workflowId, ...result }, null, 2)}\n`);
    else process.stdout.write(`${describeStaged(workflowId, result, config.sandbox).join('\n')}\n`);
    return stagedExitCode(result);
  },
);
