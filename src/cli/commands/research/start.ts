import { ResearchRuns } from '../../../clients/research-runs';
import { researchWorkflowId } from '../../../common/ids';
import { describeIssues } from '../../../common/workflow-input';
import type { Config } from '../../../config';
import { type ResearchInput, ResearchInputSchema } from '../../../core/research/run';
import type { Command } from '@commander-js/extra-typings';
import { type OptionsOf, defineCommand } from '../../command';
import { CliError, EXIT } from '../../errors';
import { parsePositiveInt } from '../../options';
import { startAndFollow } from '../../research-runs';
import * as runtime from '../../runtime';

/** `research start`'s arguments and options. */
const declare = (command: Command) =>
  command
    .argument('<question>', 'the question')
    .option('--entities <list>', "comma-separated entities (default: the supervisor's model plans them)")
    .option('--fields <list>', "comma-separated fields per entity (default: the supervisor's model plans them)")
    .option(
      '--alias <field=names>',
      'other names pages give a field, e.g. revenue=turnover,sales: a quote naming one names the field (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--max-workers <n>', 'workers running at once (default 4)', parsePositiveInt('--max-workers'))
    .option(
      '--model <spec>',
      "the supervisor's model, which plans the entities and fields left out (no model call when both are " +
        "given; default SCRATCHPAD_MODEL); also the workers' model unless --worker-model",
    )
    .option('--worker-model <spec>', 'model the research workers use (default: --model)')
    .option('--run-id <id>', 'run id (default run-<time>); the workflow id is research/<id>');

type StartOptions = OptionsOf<typeof declare>;

function splitList(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

/** The run's input, checked here so a bad flag is a usage error rather than a workflow that cannot start. */
function researchInput(question: string, options: StartOptions, config: Config): ResearchInput {
  const entities = splitList(options.entities);
  const fields = splitList(options.fields);
  const workerModel = options.workerModel ?? options.model;
  const aliases = aliasOptions(options.alias);
  const input: ResearchInput = {
    runId: options.runId !== undefined ? ResearchRuns.runIdOf(options.runId) : `run-${Date.now().toString(36)}`,
    question,
    // A list left out is planned from the question by the supervisor's model.
    ...(entities && { entities }),
    ...(fields && { fields }),
    ...(aliases && { aliases }),
    ...(options.maxWorkers && { maxWorkers: options.maxWorkers }),
    ...(options.model && { model: options.model }),
    ...(workerModel && { workerModel }),
    ...(config.SCRATCHPAD_BOARD && { mirror: config.SCRATCHPAD_BOARD }),
  };
  const parsed = ResearchInputSchema().safeParse(input);
  if (!parsed.success) throw new CliError(`invalid research run: ${describeIssues(parsed.error)}`, EXIT.usage);
  return input;
}

/** `--alias revenue=turnover,sales`, repeated: the aliases by field; a value without `=` is a usage error. */
function aliasOptions(values: readonly string[] | undefined): Record<string, string[]> | undefined {
  if (!values || values.length === 0) return undefined;
  const aliases: Record<string, string[]> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const names = splitList(value.slice(at + 1));
    if (at <= 0 || !names) throw new CliError(`--alias ${value}: expected field=name,name`, EXIT.usage);
    const field = value.slice(0, at).trim();
    aliases[field] = [...(aliases[field] ?? []), ...names];
  }
  return aliases;
}

/** `research start`: starts a run and prints entries as they land, then the answer and its citations. */
export default defineCommand(declare, async (question, options) => {
  const config = runtime.config();
  const input = researchInput(question, options, config);
  const spec = runtime.modelSpec(config, options.model ?? options.workerModel);
  if (options.workerModel) runtime.modelSpec(config, options.workerModel);
  const client = await runtime.client(config);
  const workflowId = researchWorkflowId(input.runId);
  const runs = new ResearchRuns(client);
  const models = input.workerModel ? [input.workerModel] : [];
  return runtime.withWorker(client, config, spec, workflowId, () => startAndFollow(runs, config, input), { models });
});
