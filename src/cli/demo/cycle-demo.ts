import * as path from 'node:path';
import { Agents, snapshotYaml } from '../../client';
import type { CycleResult } from '../../core/cycle/input';
import { describeChanges, diffScratchpads } from '../../core/scratchpad/diff';
import { ensureDevServer } from '../../dev-server/dev-server';
import { EXIT, outcomeExitCode } from '../errors';
import { workflowUrl } from '../format';
import { packageRoot } from '../package-root';
import * as runtime from '../runtime';

const DEMO_AGENT = 'demo';
const DEMO_TASK = 'Greet the world: echo a hello message, write hello.txt and read it back';

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** `scratchpad demo` (`npm start`): a server, a worker and one demo cycle, printed before and after. */
export async function cycleDemoCommand(): Promise<number> {
  const config = runtime.config();
  const log = (line: string) => process.stderr.write(`[demo] ${line}\n`);
  let spec: string;
  if (config.SCRATCHPAD_MODEL || config.ANTHROPIC_API_KEY) {
    spec = runtime.modelSpec(config);
  } else {
    spec = `scripted:${path.join(packageRoot(), 'examples', 'demo.jsonl')}`;
    log('No ANTHROPIC_API_KEY set: the demo uses the scripted model in examples/demo.jsonl.');
  }
  const server = await ensureDevServer(config, { log });
  const uiUrl = server.uiUrl ?? config.TEMPORAL_UI_URL;
  const client = await runtime.client(config);
  // A task queue of its own, so a worker running elsewhere with another model cannot take the demo's tasks.
  const demoConfig = { ...config, SCRATCHPAD_TASK_QUEUE: 'scratchpad-demo' };
  const worker = await runtime.startWorker({ config: demoConfig, modelSpec: spec });
  log(`worker started (model ${spec}, sandbox ${config.sandbox})`);

  const target = { agentId: DEMO_AGENT, taskQueue: demoConfig.SCRATCHPAD_TASK_QUEUE };
  const agents = new Agents(client);
  const record = await worker.runUntil(() => agents.runCycle(target, { tasks: [DEMO_TASK] }));
  const states = await agents.cycleStates(record.cycleId);
  const outcome = states.result as CycleResult;
  const before = states.input.before;
  const { runId } = await agents.describeCycle(record.cycleId);
  const lines = [
    '',
    `Scratchpad before (${record.cycleId}):`,
    indent(snapshotYaml(before)),
    '',
    'Scratchpad after:',
    indent(snapshotYaml(outcome.after)),
    '',
    `Outcome: ${outcome.outcome} after ${outcome.iterations} iteration(s), ` +
      `${outcome.usage.inputTokens} input / ${outcome.usage.outputTokens} output tokens`,
    ...(outcome.error ? [`Error: ${outcome.error}`] : []),
    'What changed:',
    ...describeChanges(diffScratchpads(before, outcome.after)).map((line) => `  ${line}`),
    '',
    `Web UI: ${workflowUrl(uiUrl, config.TEMPORAL_NAMESPACE, record.cycleId, runId)}`,
    ...(server.started
      ? ['The dev server keeps running for the Web UI; stop it with `npx scratchpad server stop`.']
      : []),
    'Next: `npx scratchpad show demo`, `npx scratchpad snapshots demo --out ./snapshots`, `npx scratchpad --help`.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return outcome.outcome === 'completed' ? EXIT.ok : outcomeExitCode(outcome);
}
