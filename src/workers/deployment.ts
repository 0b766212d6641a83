import type { WorkerOptions } from '@temporalio/worker';
import type { WorkerBuild } from '../config/deployment';

/**
 * Worker options that make a worker one build of a Worker Deployment, or none when it has no build (unversioned, as
 * before). Each workflow of this package declares its own behavior (workflows/index.ts): per-run workflows are pinned
 * to the build that started them, the agent moves to the current build. The default covers the user's own workflows
 * on a plugin worker: pinned, so a build never replays another build's history unless a workflow asks to.
 */
export function deploymentWorkerOptions(
  build: WorkerBuild | undefined,
): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  if (!build) return {};
  return {
    workerDeploymentOptions: { useWorkerVersioning: true, version: build, defaultVersioningBehavior: 'PINNED' },
  };
}

/**
 * What a plugin worker adds: the build's options unless the worker has its own. The package's workflows declare a
 * behavior whenever their worker names a deployment, which the SDK refuses unless the worker also versions it; so a
 * worker that names one without versioning is refused here, at start, rather than at its first workflow task.
 */
export function pluginDeploymentOptions(
  own: WorkerOptions['workerDeploymentOptions'],
  build: WorkerBuild | undefined,
): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  if (own && !own.useWorkerVersioning && own.version.deploymentName) {
    throw new Error(
      `ScratchpadPlugin: workerDeploymentOptions name deployment ${own.version.deploymentName} with ` +
        'useWorkerVersioning false; set it true (the agent workflows declare how they move between builds) or name none',
    );
  }
  return own ? {} : deploymentWorkerOptions(build);
}
