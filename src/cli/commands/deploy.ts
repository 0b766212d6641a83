import type { Client } from '@temporalio/client';
import { type QueueBuild, buildName, makeCurrent, queueBuilds } from '../../clients/deployments';
import type { Config, WorkerBuild } from '../../config';
import { workerBuildFromEnv } from '../../config/deployment';
import { errorMessage } from '../../common/error-message';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { isPollerAlive } from '../worker-presence';

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
export async function deployCommand(buildId: string, options: { deployment?: string; json?: boolean }) {
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
}

function buildLine(build: QueueBuild): string {
  const pollers = build.pollers.filter((poller) => isPollerAlive(poller)).map((poller) => poller.identity);
  const workers = pollers.length === 0 ? 'no worker' : `workers ${pollers.join(', ')}`;
  const open = `${build.running} open workflow(s) on it`;
  const pinned = build.pinned > 0 && build.status !== 'current' ? ` (${build.pinned} pinned: keep its workers)` : '';
  const idle = build.pinned === 0 && build.status !== 'current' && pollers.length > 0 ? ' (its workers may stop)' : '';
  return `Build ${buildName(build)}: ${build.status}; ${workers}; ${open}${pinned}${idle}`;
}

/** What `ps` says of the builds serving `taskQueue`; nothing when no versioned worker does. */
export async function deploymentLines(client: Client, taskQueue: string): Promise<string[]> {
  const queue = await queueBuilds(client, taskQueue);
  if (!queue.versioned) return [];
  const none = queue.current
    ? []
    : [`No build is current on "${taskQueue}": new workflows wait until \`scratchpad deploy BUILD_ID\`.`];
  return [...none, ...queue.builds.map(buildLine)];
}

/** `worker`'s `--deployment` and `--build-id`. */
export interface DeploymentFlags {
  deployment?: string;
  buildId?: string;
}

/** The flags in place of SCRATCHPAD_DEPLOYMENT and SCRATCHPAD_BUILD_ID, checked as the variables are. */
export function withDeployment(config: Config, flags: DeploymentFlags): Config {
  const build = workerBuildFromEnv({
    SCRATCHPAD_DEPLOYMENT: flags.deployment ?? config.SCRATCHPAD_DEPLOYMENT,
    SCRATCHPAD_BUILD_ID: flags.buildId ?? config.SCRATCHPAD_BUILD_ID,
  });
  return { ...config, SCRATCHPAD_DEPLOYMENT: build?.deploymentName, SCRATCHPAD_BUILD_ID: build?.buildId };
}

/** Says at a worker's start when its build is not current: a new build serves nothing until it is made so. */
export async function reportCurrentBuild(client: Client, taskQueue: string, build: WorkerBuild): Promise<void> {
  const { current } = await queueBuilds(client, taskQueue).catch(() => ({ current: undefined }));
  if (current && buildName(current) === buildName(build)) return;
  const now = current
    ? `build ${buildName(current)} is current on "${taskQueue}": this worker serves only what runs on ${build.buildId}`
    : `no build is current on "${taskQueue}" yet: new workflows wait`;
  process.stderr.write(`${now} until \`scratchpad deploy ${build.buildId}\` makes it current.\n`);
}
