import { buildName } from '../../clients/deployments';
import { startDirectiveBridge } from '../../clients/directive-bridge';
import type { Config } from '../../config';
import { workerBuild } from '../../config/deployment';
import { defineCommand } from '../command';
import { reportCurrentBuild, withDeployment } from '../deployments';
import { EXIT } from '../errors';
import * as runtime from '../runtime';
import { startPolling } from '../worker-presence';
import { withToolOptions, workerOptions } from '../worker-options';

/**
 * The worker's default model; none when workflows must name theirs from SCRATCHPAD_MODELS / `--models` (the demo's
 * cycle does), else the refusal saying how to configure one.
 */
function workerModel(config: Config, override: string | undefined): string | undefined {
  const spec = runtime.inProcessModel(config, override);
  return spec ?? (config.SCRATCHPAD_MODELS.length > 0 ? undefined : runtime.modelSpec(config));
}

function describeModel(config: Config, spec: string | undefined): string {
  return spec ? `model ${spec}` : `no default model (workflows name one of ${config.SCRATCHPAD_MODELS.join(', ')})`;
}

/** `scratchpad worker`: poll the task queue until interrupted. */
export default defineCommand(
  (command) =>
    workerOptions(command)
      .option('--deployment <name>', 'run as a build of this Worker Deployment (overrides SCRATCHPAD_DEPLOYMENT)')
      .option('--build-id <id>', "this worker's build in the deployment (overrides SCRATCHPAD_BUILD_ID)"),
  async (options) => {
    await runtime.requireWorkerInstall();
    const config = withDeployment(withToolOptions(runtime.config(), options), options);
    const spec = workerModel(config, options.model);
    const toolRegistry = await runtime.loadTools(config);
    const worker = await runtime.startWorker({ config, modelSpec: spec, toolRegistry });
    const build = workerBuild(config);
    const client = await runtime.client(config);
    const { running, stopped } = await startPolling(worker, client, config.SCRATCHPAD_TASK_QUEUE);
    if (stopped) {
      await running;
      return EXIT.ok;
    }
    process.stderr.write(
      `Worker polling "${config.SCRATCHPAD_TASK_QUEUE}" at ${config.TEMPORAL_ADDRESS} with ${describeModel(config, spec)}` +
        `${build ? `, as build ${buildName(build)}` : ''}; Ctrl-C to stop.\n`,
    );
    if (build) void reportCurrentBuild(client, config.SCRATCHPAD_TASK_QUEUE, build);
    await runtime.reportTools(toolRegistry, config);
    // With a board mirror, directives published on Redis reach research runs through this worker's process.
    const bridge = config.SCRATCHPAD_BOARD
      ? await startDirectiveBridge(config.SCRATCHPAD_BOARD, client, (line) => process.stderr.write(`${line}\n`))
      : undefined;
    try {
      await running;
    } finally {
      await bridge?.close();
    }
    return EXIT.ok;
  },
);
