import * as fs from 'node:fs/promises';
import YAML from 'yaml';
import { startCycle } from '../../client';
import type { CycleResult } from '../../core/cycle';
import { describeChanges, diffScratchpads } from '../../core/diff';
import { type Scratchpad, normalizeScratchpad } from '../../core/scratchpad';
import { CliError, EXIT } from '../errors';
import { workflowUrl } from '../format';
import * as runtime from '../runtime';

export interface CycleOptions {
  agent: string;
  task: string[];
  maxIterations?: number;
  from?: string;
  model?: string;
  json?: boolean;
}

/** Reads a scratchpad from a YAML or JSON file; missing keys take their defaults (seed 000 `load`). */
export async function readScratchpadFile(file: string): Promise<Scratchpad> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
  try {
    return normalizeScratchpad(YAML.parse(text) ?? {});
  } catch (error) {
    throw new CliError(`${file} is not a valid scratchpad: ${(error as Error).message}`, EXIT.usage);
  }
}

export function outcomeExitCode(result: CycleResult): number {
  if (result.outcome === 'failed') return EXIT.cycleFailed;
  if (result.outcome === 'max_iterations') return EXIT.maxIterations;
  return EXIT.ok;
}

/** `scratchpad cycle`: run one cycle of an agent, wait, print the outcome and what changed. */
export async function cycleCommand(options: CycleOptions): Promise<number> {
  const config = runtime.config();
  const spec = runtime.modelSpec(config, options.model);
  const from = options.from ? await readScratchpadFile(options.from) : undefined;
  const client = await runtime.client(config);
  const handle = await startCycle(client, {
    agentId: options.agent,
    taskQueue: config.SCRATCHPAD_TASK_QUEUE,
    tasks: options.task,
    maxIterations: options.maxIterations,
    model: options.model,
    from,
  });
  if (!options.json) process.stderr.write(`Started ${handle.workflowId}\n`);
  const result = await runtime.withWorker(client, config, spec, () => handle.result());
  const before = (await handle.query<Scratchpad>('before').catch(() => undefined)) ?? from;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ workflowId: handle.workflowId, ...result }, null, 2)}\n`);
    return outcomeExitCode(result);
  }
  const lines = [
    `Cycle ${result.cycleId}: ${result.outcome} after ${result.iterations} iteration(s)` +
      ` (${result.usage.inputTokens} input / ${result.usage.outputTokens} output tokens)`,
    ...(result.error ? [`Error: ${result.error}`] : []),
    ...(before ? ['Changed:', ...describeChanges(diffScratchpads(before, result.after)).map((line) => `  ${line}`)] : []),
    `Web UI: ${workflowUrl(config.TEMPORAL_UI_URL, config.TEMPORAL_NAMESPACE, handle.workflowId, handle.firstExecutionRunId)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return outcomeExitCode(result);
}
