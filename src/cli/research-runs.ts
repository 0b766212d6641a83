import { type ResearchRunSummary, ResearchRuns } from '../clients/research-runs';
import { researchWorkflowId } from '../common/ids';
import type { Config } from '../config';
import type { ResearchInput, ResearchResult, ResearchUsage } from '../core/research/run';
import { entryLine, strategyLines } from '../core/research/render';
import { CliError, EXIT } from './errors';

// What the research commands and the research demo share: following a run to its answer, finding a run by id.

/** One line on stdout. */
export const out = (line: string) => process.stdout.write(`${line}\n`);

/** Starts the run, prints its entries as they land, then the answer or what is missing; resolves to the exit code. */
export async function startAndFollow(runs: ResearchRuns, config: Config, input: ResearchInput): Promise<number> {
  await runs.start(input, { taskQueue: config.SCRATCHPAD_TASK_QUEUE });
  const workflowId = researchWorkflowId(input.runId);
  out(`research ${input.runId} started (${workflowId})`);
  if (!input.entities || !input.fields) out(`planning: the supervisor's model turns the question into STRATEGY`);
  const result = await runs.follow(input.runId, (entry) => [entryLine(entry), ...strategyLines(entry)].forEach(out));
  return printResult(result, workflowId);
}

function printResult(result: ResearchResult, workflowId: string): number {
  out('');
  if (result.usage) out(usageLine(result.usage));
  if (result.outcome === 'complete') {
    out(`Answer (${workflowId}), citing VERIFIED entries ${result.citations.join(', ')}:`);
    out(result.answer ?? '');
    return EXIT.ok;
  }
  out(`Incomplete: no answer over unverified facts. Missing:`);
  for (const line of result.missing) out(`- ${line}`);
  return EXIT.incomplete;
}

/** The workers' model usage, their sub-agents included. */
function usageLine({ usage, costUsd }: ResearchUsage): string {
  const cost = costUsd === null ? 'cost unknown (a model without a known price)' : `$${costUsd.toFixed(4)}`;
  return `Workers used ${usage.inputTokens} input and ${usage.outputTokens} output tokens, ${cost}.`;
}

/** The run `id` names (with or without `research/`), or a CliError saying there is none and how to find one. */
export async function existingRun(runs: ResearchRuns, id: string): Promise<ResearchRunSummary> {
  const run = await runs.describe(id);
  if (!run) {
    throw new CliError(
      `no such research run: ${ResearchRuns.runIdOf(id)} (\`scratchpad research list --all\` lists every run)`,
    );
  }
  return run;
}

/** Why a directive cannot reach a run that has ended, and what to do instead. */
export function finishedRun(run: ResearchRunSummary): CliError {
  const outcome = run.outcome ? `, outcome ${run.outcome}` : '';
  return new CliError(
    `research run ${run.runId} has finished (${run.status}${outcome}): directives reach running runs only; ` +
      `start a new run with \`scratchpad research start\``,
  );
}
