import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { StagedRuns } from '../../clients/staged-runs';
import { ensureDevServer } from '../../dev-server/local-server';
import { errorMessage } from '../../common/error-message';
import { describeStaged } from '../staged-result';
import { CliError, stagedExitCode } from '../errors';
import { packageRoot } from '../package-root';
import * as runtime from '../runtime';
import { defineCommand } from '../command';

const DEMO_TASK = 'Build a small Node module slug.js exporting slugify(text), with node:test tests';

/**
 * `scratchpad staged demo`: offline, a scripted model plans and builds a Node module with tests in a fresh sandbox;
 * `node --test` fails, a repair stage fixes it, and only then is the run `verified`.
 */
async function stagedDemoCommand(): Promise<number> {
  const config = runtime.config();
  const log = (line: string) => process.stderr.write(`[staged demo] ${line}\n`);
  const spec = `scripted:${path.join(packageRoot(), 'examples', 'staged-demo.jsonl')}`;
  await ensureDevServer(config, { log }).catch((error: unknown) => {
    throw new CliError(errorMessage(error));
  });
  const client = await runtime.client(config);
  // A fresh directory, inside SCRATCHPAD_SANDBOX when set: verification runs `node --test` over all it holds.
  const parent = config.SCRATCHPAD_SANDBOX ? config.sandbox : os.tmpdir();
  await fs.mkdir(parent, { recursive: true });
  const sandbox = await fs.mkdtemp(path.join(parent, 'scratchpad-staged-demo-'));
  // Its own task queue (derived from the configured one): a worker elsewhere with another model must not take these.
  const demoConfig = { ...config, SCRATCHPAD_TASK_QUEUE: `${config.SCRATCHPAD_TASK_QUEUE}-staged-demo`, sandbox };
  const logFile = runtime.workerLogFile(config);
  const worker = await runtime.startWorker({ config: demoConfig, modelSpec: spec }, { logFile });
  log(`worker started in this process (model ${spec}, sandbox ${sandbox}, logs in ${logFile})`);
  const agentId = `staged-demo-${Date.now()}`;
  const runs = new StagedRuns(client);
  const { result, workflowId } = await worker.runUntil(async () => {
    const input = { agentId, task: DEMO_TASK, staged: true, verify: 'node --test' };
    const { workflowId } = await runs.start(input, { taskQueue: demoConfig.SCRATCHPAD_TASK_QUEUE });
    return { result: await runs.result(workflowId), workflowId };
  });
  const listing = await fs.readdir(sandbox);
  const lines = [
    ...describeStaged(workflowId, result, sandbox),
    ...result.verifications
      .filter((verification) => !verification.passed)
      .map((verification) => `What the failing verification showed the repair stage:\n${indent(verification.output)}`),
    `Sandbox now holds: ${listing.sort().join(', ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return stagedExitCode(result);
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .slice(0, 20)
    .map((line) => `    ${line}`)
    .join('\n');
}

export default defineCommand((command) => command, stagedDemoCommand);
