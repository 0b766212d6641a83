import type { Client } from '@temporalio/client';
import { buildName, makeCurrent, queueBuilds } from '../../clients/deployments';
import type { WorkerBuild } from '../../config';
import { errorMessage } from '../../common/error-message';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

/** The deployment a command means: the option, SCRATCHPAD_DEPLOYMENT, else the one whose workers poll the queue. */
async function chosenDeployment(client: Client, taskQueue: string, named: string | undefined): Promise<string> {
  if (named !== undefined) return named;
  const polling = [...new Set((await queueBuilds(client, taskQueue)).builds.map((build) => build.deploymentName))];
  if (polling.length === 1) return polling[0] as string;
  const found = polling.length === 0 ? `no versioned worker polls "${taskQueue}"` : `${polling.join(', ')} poll it`;
  throw new CliError(`which deployment? ${found}: give --deployment NAME or set SCRATCHPAD_DEPLOYMENT`, EXIT.usage);
}

/** The server's refusal in words that say what to do. */
function refusal(error: unknown, build: WorkerBuild): CliError {
  const message = errorMessage(error);
  if (/not found|have pollers/i.test(message)) {
    return new CliError(
      `no worker of build ${buildName(build)} has polled yet: start them first (SCRATCHPAD_DEPLOYMENT=` +
        `${build.deploymentName} SCRATCHPAD_BUILD_ID=${build.buildId} scratchpad worker), then run this again`,
    );
  }
  return new CliError(`cannot make ${buildName(build)} current: ${message}`);
}

/**
 * `scratchpad deploy BUILD_ID`: make a build current. New workflows start on it and agents move to it at their next
 * step; cycles, research and staged runs finish on the build that started them.
 */
export default defineCommand(
  (command) =>
    command
      .argument('<build-id>', 'a build whose workers poll already')
      .option('--deployment <name>', 'the Worker Deployment (default SCRATCHPAD_DEPLOYMENT, else the one polling)')
      .option('--json', 'print as JSON'),
  async (buildId, options) => {
    const config = runtime.config();
    const client = await runtime.client(config);
    const named = options.deployment ?? config.SCRATCHPAD_DEPLOYMENT;
    const deploymentName = await chosenDeployment(client, config.SCRATCHPAD_TASK_QUEUE, named);
    const build = { deploymentName, buildId };
    const previous = await makeCurrent(client, build).catch((error: unknown) => {
      throw refusal(error, build);
    });
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ...build, previous: previous ?? null }, null, 2)}\n`);
      return EXIT.ok;
    }
    const was = previous ? ` (was ${previous.buildId})` : '';
    const drain = previous
      ? [
          `Cycles, research and staged runs that started on ${previous.buildId} finish there: \`scratchpad ps\` shows ` +
            `what still runs on it; stop its workers once nothing does.`,
        ]
      : [];
    process.stdout.write(
      [
        `Build ${buildId} of deployment ${deploymentName} is current${was}.`,
        `New workflows start on ${buildId}; agents move to it at their next step.`,
        ...drain,
      ].join('\n') + '\n',
    );
    return EXIT.ok;
  },
);
