import * as fs from 'node:fs/promises';
import { StagedRuns } from '../../client';
import type { StageRecord, StagedInput, StagedResult } from '../../core/staged/input';
import { stagedWorkflowId } from '../../common/ids';
import { CliError, EXIT, stagedExitCode } from '../errors';
import * as runtime from '../runtime';
import { agentContext } from './agent';
import { followStaged } from '../follow';

/** The options of `scratchpad staged`, once AGENT and `--task` are known to be there. */
export interface StagedOptions {
  agent: string;
  task: string;
  verify?: string;
  staged?: boolean;
  maxPaths?: number;
  maxRepairs?: number;
  priorScratchpad?: string;
  model?: string;
  json?: boolean;
}

/** The agent a command names: its AGENT argument or `--agent` (an alias); both, and different, is a usage error. */
export function agentFrom(argument: string | undefined, option: string | undefined, command: string): string {
  if (argument !== undefined && option !== undefined && argument !== option) {
    throw new CliError(`${command}: AGENT "${argument}" and --agent "${option}" differ: give one`, EXIT.usage);
  }
  const agentId = argument ?? option;
  if (agentId === undefined) throw new CliError(`${command} needs an AGENT (or --agent ID)`, EXIT.usage);
  return agentId;
}

/** Bytes of a prior scratchpad file read; only the first 2,000 characters reach the model anyway. */
const PRIOR_FILE_MAX_BYTES = 64 * 1024;

/**
 * `--prior-scratchpad PATH|last`: a file's text, or the run-local notes of the agent's latest finished task cycle or
 * staged run that left some, naming it on stderr; an error when there is none.
 */
export async function resolvePriorScratchpad(runs: StagedRuns, agentId: string, value: string): Promise<string> {
  if (value === 'last') {
    const notes = await runs.latestNotes(agentId);
    if (!notes) {
      throw new CliError(
        `--prior-scratchpad last: no finished task cycle or staged run of ${agentId} left run-local notes; ` +
          'give a file instead, or run one that keeps notes first',
        EXIT.usage,
      );
    }
    const when = notes.closedAt ? `, finished ${notes.closedAt.toISOString()}` : '';
    process.stderr.write(`Prior scratchpad: the notes of ${notes.kind} ${notes.workflowId}${when}\n`);
    return notes.text;
  }
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(value, 'r');
    const buffer = Buffer.alloc(PRIOR_FILE_MAX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, PRIOR_FILE_MAX_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch (error) {
    throw new CliError(`cannot read the prior scratchpad ${value}: ${(error as Error).message}`, EXIT.usage);
  } finally {
    await handle?.close();
  }
}

/** One stage attempt: its outcome, `changed` with the paths or `no_change` (after how many corrections), refusals. */
function stageLine(stage: StageRecord): string {
  const change = stage.change ?? (stage.touchedPaths.length > 0 ? 'changed' : 'no_change');
  const what = change === 'changed' ? `changed ${stage.touchedPaths.join(', ')}` : 'no_change';
  const corrections = stage.corrections ? ` after ${stage.corrections} correction(s)` : '';
  const refused = stage.refusedPaths.length > 0 ? `; refused paths ${stage.refusedPaths.join(', ')}` : '';
  return `${stage.outcome}, ${what}${corrections}${refused}`;
}

/** Human-readable lines of a staged run's result. */
export function describeStaged(workflowId: string, result: StagedResult, sandbox: string): string[] {
  return [
    `Staged run ${workflowId}: ${result.outcome} — ${result.reason}`,
    ...(result.staged ? ['Plan:', ...result.plan.map((stage, i) => `  ${i + 1}. ${stage}`)] : []),
    ...(result.notices ?? []).map((notice) => `Note: ${notice}`),
    'Stages:',
    ...result.stages.map(
      (stage) => `  ${stage.cycleId.slice(workflowId.length + 1)} (${stage.kind}): ${stageLine(stage)}`,
    ),
    ...result.verifications.map(
      (verification, i) =>
        `Verification ${i + 1}: \`${verification.command}\` ${verification.passed ? 'passed' : 'failed'}`,
    ),
    `Files (in ${sandbox}): ${result.files.join(', ') || 'none'}`,
    ...(result.scratchpad ? [`Scratchpad: ${result.scratchpad.slice(0, 500)}`] : []),
    ...(result.error ? [`Error: ${result.error}`] : []),
  ];
}

/** `scratchpad staged AGENT`: a staged run of one task, followed stage by stage; the exit code says how it ended. */
export async function stagedCommand(agentArgument: string | undefined, flags: Partial<StagedOptions>): Promise<number> {
  const agent = agentFrom(agentArgument, flags.agent, 'staged');
  if (typeof flags.task !== 'string') {
    throw new CliError('staged needs AGENT and --task TEXT (or: scratchpad staged demo)', EXIT.usage);
  }
  const options: StagedOptions = { ...flags, agent, task: flags.task };
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
}
