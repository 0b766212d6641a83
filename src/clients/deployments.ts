import * as os from 'node:os';
import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { WorkerBuild } from '../config/deployment';
import { visibilityString } from './visibility';

const { VersioningBehavior, WorkerDeploymentVersionStatus: Status } = temporal.api.enums.v1;
type RawVersion = temporal.api.deployment.v1.IWorkerDeploymentVersion | null | undefined;

function buildOf(version: RawVersion): WorkerBuild | undefined {
  if (!version?.deploymentName || !version.buildId) return undefined;
  return { deploymentName: version.deploymentName, buildId: version.buildId };
}

/** `deployment:build`, as the server and the `temporal` CLI print a version. */
export function buildName(build: WorkerBuild): string {
  return `${build.deploymentName}:${build.buildId}`;
}

/** The build a workflow execution runs on, and whether it stays there (pinned) or follows the current build. */
export interface ExecutionBuild extends WorkerBuild {
  behavior: 'pinned' | 'auto-upgrade';
}

/** The build of an execution as the server describes it; none for an unversioned one. */
export function executionBuild(info: temporal.api.workflow.v1.IWorkflowExecutionInfo | null | undefined) {
  const versioning = info?.versioningInfo;
  const override = versioning?.versioningOverride;
  // A person may have pinned the execution elsewhere (`temporal workflow update-options`): that wins.
  const pinnedTo = buildOf(override?.pinned?.version);
  if (pinnedTo) return { ...pinnedTo, behavior: 'pinned' } satisfies ExecutionBuild;
  const build = buildOf(versioning?.deploymentVersion);
  const behavior = override?.autoUpgrade ? VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE : versioning?.behavior;
  if (!build || !behavior) return undefined;
  const upgrades = behavior === VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE;
  return { ...build, behavior: upgrades ? 'auto-upgrade' : 'pinned' } satisfies ExecutionBuild;
}

/** The build a workflow runs on; none when it is unversioned or gone. */
export async function workflowBuild(client: Client, workflowId: string): Promise<ExecutionBuild | undefined> {
  const response = await client.workflowService
    .describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId } })
    .catch(() => undefined);
  return executionBuild(response?.workflowExecutionInfo);
}

/** One build that serves a task queue, or did. */
export interface QueueBuild extends WorkerBuild {
  /** As the deployment sees it: `current`, `ramping`, `draining` (pinned work left), `drained`, `inactive`. */
  status: string;
  /** Its workers the server lists on the queue (gone ones too, for minutes), with their last poll. */
  pollers: { identity: string; lastAccessMs: number | undefined }[];
  /** Open workflows of the queue on this build. */
  running: number;
  /** Those of them pinned to it: its workers must run until these finish. */
  pinned: number;
}

/** Who serves a task queue under Worker Versioning; `versioned` false when no versioned worker polls it. */
export interface QueueBuilds {
  versioned: boolean;
  current?: WorkerBuild;
  builds: QueueBuild[];
}

const STATUS_NAMES: Record<number, string> = {
  [Status.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT]: 'current',
  [Status.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING]: 'ramping',
  [Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING]: 'draining',
  [Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED]: 'drained',
  [Status.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE]: 'inactive',
};

/** The versions of a deployment with their status; none when the deployment does not exist. */
async function deploymentVersions(client: Client, deploymentName: string) {
  const response = await client.workflowService
    .describeWorkerDeployment({ namespace: client.options.namespace, deploymentName })
    .catch(() => undefined);
  return (response?.workerDeploymentInfo?.versionSummaries ?? []).flatMap((summary) => {
    const build = buildOf(summary.deploymentVersion);
    return build ? [{ ...build, status: STATUS_NAMES[summary.status ?? 0] ?? 'inactive' }] : [];
  });
}

/** Open workflows of `taskQueue` on a build, and how many are pinned there, from visibility. */
async function openOn(client: Client, taskQueue: string, build: WorkerBuild) {
  const query =
    `TemporalWorkerDeploymentVersion = ${visibilityString(buildName(build))} AND ` +
    `TaskQueue = ${visibilityString(taskQueue)} AND ExecutionStatus = 'Running'`;
  const running = (await client.workflow.count(query)).count;
  if (running === 0) return { running, pinned: 0 };
  const pinned = await client.workflow.count(`${query} AND TemporalWorkflowVersioningBehavior = 'Pinned'`);
  return { running, pinned: pinned.count };
}

/** The builds of every deployment whose workers poll `taskQueue`, with their pollers and open workflows. */
export async function queueBuilds(client: Client, taskQueue: string): Promise<QueueBuilds> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const pollers = (response.pollers ?? []).flatMap((poller) => {
    const options = poller.deploymentOptions;
    const versioned =
      options?.workerVersioningMode === temporal.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;
    const build = versioned ? buildOf(options) : undefined;
    const seen = { identity: poller.identity ?? '', lastAccessMs: optionalTsToMs(poller.lastAccessTime) };
    return build ? [{ ...build, ...seen }] : [];
  });
  const current = buildOf(response.versioningInfo?.currentDeploymentVersion);
  const names = new Set([
    ...pollers.map((poller) => poller.deploymentName),
    ...(current ? [current.deploymentName] : []),
  ]);
  const builds: QueueBuild[] = [];
  for (const deploymentName of [...names].sort()) {
    for (const version of await deploymentVersions(client, deploymentName)) {
      const own = pollers.filter((poller) => buildName(poller) === buildName(version));
      builds.push({
        ...version,
        pollers: own.map(({ identity, lastAccessMs }) => ({ identity, lastAccessMs })),
        ...(await openOn(client, taskQueue, version)),
      });
    }
  }
  return { versioned: builds.length > 0, current, builds };
}

/**
 * Makes `build` the current build of its deployment: new workflows start on it and auto-upgrading ones move to it;
 * pinned ones finish where they are. Returns the build that was current. The server refuses a build none of whose
 * workers has polled yet, and one missing a task queue the current build serves.
 */
export async function makeCurrent(client: Client, build: WorkerBuild): Promise<WorkerBuild | undefined> {
  const response = await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: client.options.namespace,
    deploymentName: build.deploymentName,
    buildId: build.buildId,
    identity: `scratchpad@${os.hostname()}`,
  });
  return buildOf(response.previousDeploymentVersion);
}
