import type { Client } from '@temporalio/client';
import { type QueueBuild, buildName, queueBuilds } from '../clients/deployments';
import type { Config, WorkerBuild } from '../config';
import { workerBuildFromEnv } from '../config/deployment';
import { isPollerAlive } from './worker-presence';

// Worker Versioning as `ps` and `worker` show it: the builds serving a task queue, and a worker's own build.

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

/** The flags in place of SCRATCHPAD_DEPLOYMENT and SCRATCHPAD_BUILD_ID, checked as the variables are. */
export function withDeployment(config: Config, flags: { deployment?: string; buildId?: string }): Config {
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
