import * as path from 'node:path';
import { Agents } from '../../clients/agents';
import { snapshotYaml } from '../../clients/snapshots';
import type { CycleResult } from '../../core/cycle/input';
import { describeChanges, diffScratchpads } from '../../core/scratchpad/diff';
import { bringUp, runningLines } from '../bring-up';
import { CliError, EXIT, outcomeExitCode } from '../errors';
import { workflowUrl } from '../format';
import { packageRoot } from '../package-root';
import * as runtime from '../runtime';
import { defineCommand } from '../command';

const DEMO_TASK = 'Greet the world: echo a hello message, write hello.txt and read it back';

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/**
 * `scratchpad demo` (`npm start`): `up` (a dev server and a worker left running), then one cycle of a fresh demo
 * agent, printed before and after. With no model configured the cycle names the scripted model of
 * examples/demo.jsonl, which the worker `up` starts allows; its entries match the demo's prompts, so a worker keeps
 * no position in it and serves any number of demo runs.
 */
async function cycleDemoCommand(): Promise<number> {
  const config = runtime.config();
  const log = (line: string) => process.stderr.write(`[demo] ${line}\n`);
  const configured = runtime.inProcessModel(config);
  const scripted = `scripted:${path.join(packageRoot(), 'examples', 'demo.jsonl')}`;
  if (!configured) log('No model configured (ANTHROPIC_API_KEY, SCRATCHPAD_MODEL): the demo cycle names ' + scripted);
  const running = await bringUp(config, { extraModels: configured ? [] : [scripted], log });
  const { worker } = running;
  if (!configured && worker.model !== scripted && !worker.models.includes(scripted)) {
    throw new CliError(
      `the worker already running (pid ${worker.pid}) does not allow the demo's scripted model: ` +
        '`npx scratchpad down`, then `npm start` again, or configure a model',
    );
  }
  if (configured && worker.model !== configured) {
    log(
      `the running worker's model is ${worker.model ?? 'none'}, not ${configured}: \`npx scratchpad down\` to change it`,
    );
  }
  const agentId = `demo-${Date.now().toString(36)}`;
  log(`demo agent ${agentId}, task queue "${config.SCRATCHPAD_TASK_QUEUE}", worker pid ${worker.pid}`);
  const agents = new Agents(running.client);
  const target = { agentId, taskQueue: config.SCRATCHPAD_TASK_QUEUE };
  const record = await agents.runCycle(target, { tasks: [DEMO_TASK], ...(configured ? {} : { model: scripted }) });
  const states = await agents.cycleStates(record.cycleId);
  const outcome = states.result as CycleResult;
  const before = states.input.before;
  const { runId } = await agents.describeCycle(record.cycleId);
  const uiUrl = running.server.uiUrl ?? config.TEMPORAL_UI_URL;
  const lines = [
    '',
    `Demo agent: ${agentId}`,
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
    ...runningLines(running),
    `Next: \`npx scratchpad show ${agentId}\`, \`npx scratchpad snapshots ${agentId} --out ./snapshots\`, ` +
      '`npx scratchpad --help`.',
    ...(configured
      ? [`Chat with it: \`npx scratchpad send ${agentId} "Hello"\`.`]
      : [
          'To chat with it, configure a model (ANTHROPIC_API_KEY), then `npx scratchpad down` and `npx scratchpad up`.',
        ]),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return outcome.outcome === 'completed' ? EXIT.ok : outcomeExitCode(outcome);
}

export default defineCommand((command) => command, cycleDemoCommand);
