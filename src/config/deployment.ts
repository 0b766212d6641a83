import { z } from 'zod';
import { ConfigError } from './errors';

/** A build of a Worker Deployment: the name of the service and the id of one release of its code. */
export interface WorkerBuild {
  deploymentName: string;
  buildId: string;
}

// The server joins the two as `deployment:build` in visibility; a name with the separator would read ambiguously.
const part = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\s:]+$/, 'expected no spaces and no ":"');

/** The variables that put a worker in a Worker Deployment (Worker Versioning); off unless both are set. */
export const deploymentEnv = {
  SCRATCHPAD_DEPLOYMENT: part
    .optional()
    .describe(
      'Worker Deployment name (with SCRATCHPAD_BUILD_ID): cycles finish on the build that started them, agents move ' +
        'to the build made current (`scratchpad deploy BUILD_ID`); unset, workers are unversioned',
    ),
  SCRATCHPAD_BUILD_ID: part.optional().describe("this worker's build in SCRATCHPAD_DEPLOYMENT, e.g. a git commit"),
};

/** The build a worker serves, from the pair of variables (or options in their place); a lone half is an error. */
export function workerBuild(values: { SCRATCHPAD_DEPLOYMENT?: string; SCRATCHPAD_BUILD_ID?: string }) {
  const { SCRATCHPAD_DEPLOYMENT: deploymentName, SCRATCHPAD_BUILD_ID: buildId } = values;
  if (deploymentName === undefined && buildId === undefined) return undefined;
  if (deploymentName === undefined || buildId === undefined) {
    const missing =
      deploymentName === undefined ? 'SCRATCHPAD_DEPLOYMENT (--deployment)' : 'SCRATCHPAD_BUILD_ID (--build-id)';
    throw new ConfigError(`a versioned worker needs both a deployment name and a build id: set ${missing} too`);
  }
  return { deploymentName, buildId } satisfies WorkerBuild;
}

/** The build the environment names, checked as configuration is: for workers that read no other configuration. */
export function workerBuildFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerBuild | undefined {
  const schema = z.object(deploymentEnv);
  const parsed = schema.safeParse({
    SCRATCHPAD_DEPLOYMENT: env.SCRATCHPAD_DEPLOYMENT || undefined,
    SCRATCHPAD_BUILD_ID: env.SCRATCHPAD_BUILD_ID || undefined,
  });
  if (!parsed.success) throw new ConfigError(`invalid configuration: ${z.prettifyError(parsed.error)}`);
  return workerBuild(parsed.data);
}
