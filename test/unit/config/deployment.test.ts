import * as os from 'node:os';
import type { WorkerOptions } from '@temporalio/worker';
import { loadConfig, workerBuild } from '../../../src/config';
import { workerBuildFromEnv } from '../../../src/config/deployment';
import { ScratchpadPlugin, type ScratchpadPluginOptions } from '../../../src/workers/plugin';
import { MemoryObservationStore } from '../../../src/activities/observations/memory-store';
import { executionBuild } from '../../../src/clients/deployments';
import { buildLines } from '../../../src/cli/status-lines';
import { temporal } from '@temporalio/proto';

function plugin(options: Partial<ScratchpadPluginOptions> = {}) {
  return new ScratchpadPlugin({
    tools: { sandboxRoot: os.tmpdir(), shellAllow: [], shellTimeoutMs: 1000, fetchAllowHosts: [], fetchMaxBytes: 1000 },
    observations: new MemoryObservationStore(),
    ...options,
  });
}

const build = { deploymentName: 'agents', buildId: 'abc123' };
const versioned = {
  workerDeploymentOptions: { useWorkerVersioning: true, version: build, defaultVersioningBehavior: 'PINNED' },
};

describe('worker builds (Worker Versioning)', () => {
  it('are off unless both variables are set, and a lone half is an error naming the other', () => {
    expect(workerBuild(loadConfig({}))).toBeUndefined();
    expect(workerBuild(loadConfig({ SCRATCHPAD_DEPLOYMENT: 'agents', SCRATCHPAD_BUILD_ID: 'abc123' }))).toEqual(build);
    expect(() => workerBuild(loadConfig({ SCRATCHPAD_DEPLOYMENT: 'agents' }))).toThrow(/SCRATCHPAD_BUILD_ID/);
    expect(() => workerBuildFromEnv({ SCRATCHPAD_BUILD_ID: 'abc123' })).toThrow(/SCRATCHPAD_DEPLOYMENT/);
    expect(() => loadConfig({ SCRATCHPAD_DEPLOYMENT: 'a:b' })).toThrow(/SCRATCHPAD_DEPLOYMENT/);
  });

  it("make the plugin's worker a pinned-by-default build, from the option or the environment", () => {
    expect(plugin({ deployment: build }).configureWorker({ taskQueue: 'q' } as WorkerOptions)).toMatchObject(versioned);
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { SCRATCHPAD_DEPLOYMENT: 'agents', SCRATCHPAD_BUILD_ID: 'abc123' });
      expect(plugin().configureWorker({ taskQueue: 'q' } as WorkerOptions)).toMatchObject(versioned);
      const off = plugin({ deployment: false }).configureWorker({ taskQueue: 'q' } as WorkerOptions);
      expect(off.workerDeploymentOptions).toBeUndefined();
    } finally {
      process.env = saved;
    }
  });

  it("leave a worker's own deployment options and an unversioned worker as they are", () => {
    const own = { useWorkerVersioning: true, version: build, defaultVersioningBehavior: 'AUTO_UPGRADE' } as const;
    const options = plugin({ deployment: { ...build, buildId: 'other' } }).configureWorker({
      taskQueue: 'q',
      workerDeploymentOptions: own,
    } as WorkerOptions);
    expect(options.workerDeploymentOptions).toEqual(own);
    const unversioned = plugin({ deployment: false }).configureWorker({ taskQueue: 'q' } as WorkerOptions);
    expect(unversioned.workerDeploymentOptions).toBeUndefined();
  });

  it('refuse a worker that names a deployment without versioning it', () => {
    const named = { useWorkerVersioning: false, version: build } as const;
    expect(() => plugin().configureWorker({ taskQueue: 'q', workerDeploymentOptions: named } as WorkerOptions)).toThrow(
      /useWorkerVersioning false/,
    );
  });

  it('read as the server describes an execution, a person’s pinning first', () => {
    const { VersioningBehavior } = temporal.api.enums.v1;
    const version = { deploymentName: 'agents', buildId: 'two' };
    expect(executionBuild({})).toBeUndefined();
    expect(
      executionBuild({
        versioningInfo: { behavior: VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE, deploymentVersion: version },
      }),
    ).toEqual({ ...version, behavior: 'auto-upgrade' });
    // An unversioned worker that names a deployment leaves the version but no behavior.
    expect(executionBuild({ versioningInfo: { deploymentVersion: version } })).toBeUndefined();
    const pinnedByHand = {
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
      deploymentVersion: version,
      versioningOverride: { pinned: { version: { deploymentName: 'agents', buildId: 'one' } } },
    };
    expect(executionBuild({ versioningInfo: pinnedByHand })).toEqual({
      ...version,
      buildId: 'one',
      behavior: 'pinned',
    });
    expect(
      buildLines({
        agent: { ...version, behavior: 'auto-upgrade' },
        cycles: [{ ...version, buildId: 'one', behavior: 'pinned', cycleId: 'agent/a/cycle/1' }],
      }),
    ).toEqual([
      'build: the agent runs on agents:two (moves to each build made current)',
      '  agent/a/cycle/1 runs on agents:one (pinned: finishes there)',
    ]);
  });
});
