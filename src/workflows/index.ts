import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { WorkflowTypes } from '../common/workflow-types';
import type * as AgentModule from './agent/agent';
import type * as AgentCycleModule from './agent/agent-cycle';
import type * as SubagentModule from './agent/subagent';
import type * as InvestigationModule from './research/investigation';
import type * as StageModule from './staged/stage';
import type * as ResearchModule from './research/research';
import type * as ResearchWorkerModule from './research/research-worker';
import type * as ScheduledWakeModule from './agent/scheduled-wake';
import type * as StagedTaskModule from './staged/staged-task';
import type * as WorkerToolsModule from './tools/worker-tools';

/*
 * Unless a worker shares its workflow modules (config/paths.ts, as this package's workers do), the SDK gives every
 * workflow execution its own instance of each bundled module, evaluated when the workflow starts (and again when a
 * worker rebuilds an evicted one): importing every workflow here made each new agent and each cycle build the zod
 * schemas and rules of research runs and staged tasks too, most of a new workflow's first task
 * (bench/throughput-tasks.ts). So each workflow type loads its own module graph, synchronously, on its first call:
 * handlers are still registered in the workflow's first activation, and the commands it issues are the same.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const agent: WorkflowTypes['agent'] = (...args) =>
  (require('./agent/agent') as typeof AgentModule).agent(...args);
export const agentCycle: WorkflowTypes['agentCycle'] = (...args) =>
  (require('./agent/agent-cycle') as typeof AgentCycleModule).agentCycle(...args);
export const subagentCycle: WorkflowTypes['subagentCycle'] = (...args) =>
  (require('./agent/subagent') as typeof SubagentModule).subagentCycle(...args);
export const investigationCycle: WorkflowTypes['investigationCycle'] = (...args) =>
  (require('./research/investigation') as typeof InvestigationModule).investigationCycle(...args);
export const stageCycle: WorkflowTypes['stageCycle'] = (...args) =>
  (require('./staged/stage') as typeof StageModule).stageCycle(...args);
export const scheduledWake: WorkflowTypes['scheduledWake'] = (...args) =>
  (require('./agent/scheduled-wake') as typeof ScheduledWakeModule).scheduledWake(...args);
export const stagedTask: WorkflowTypes['stagedTask'] = (...args) =>
  (require('./staged/staged-task') as typeof StagedTaskModule).stagedTask(...args);
export const research: WorkflowTypes['research'] = (...args) =>
  (require('./research/research') as typeof ResearchModule).research(...args);
export const researchWorker: WorkflowTypes['researchWorker'] = (...args) =>
  (require('./research/research-worker') as typeof ResearchWorkerModule).researchWorker(...args);
export const workerTools: WorkflowTypes['workerTools'] = (...args) =>
  (require('./tools/worker-tools') as typeof WorkerToolsModule).workerTools(...args);
/* eslint-enable @typescript-eslint/no-require-imports */

/*
 * Worker Versioning, on workers given a deployment and build (SCRATCHPAD_DEPLOYMENT, the plugin's `deployment`):
 * every workflow but the agent is one bounded run, so it stays on the build that started it and a new build may change
 * its code freely. The agent lives for months, and a pinned one would keep starting its cycles on the old build (a
 * child inherits a pinned parent's build) and keep that build's workers busy for good; so it moves to the current
 * build at its next task, and a change to its own code must replay the previous build's history (README, Upgrading).
 * An unversioned worker must declare no behavior at all (the SDK refuses its tasks' completions): hence a getter,
 * asked at each start.
 */
const versioned = (versioningBehavior: VersioningBehavior) => () =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {};
setWorkflowOptions(versioned('AUTO_UPGRADE'), agent);
setWorkflowOptions(versioned('PINNED'), agentCycle);
setWorkflowOptions(versioned('PINNED'), subagentCycle);
setWorkflowOptions(versioned('PINNED'), investigationCycle);
setWorkflowOptions(versioned('PINNED'), stageCycle);
setWorkflowOptions(versioned('PINNED'), scheduledWake);
setWorkflowOptions(versioned('PINNED'), stagedTask);
setWorkflowOptions(versioned('PINNED'), research);
setWorkflowOptions(versioned('PINNED'), researchWorker);
setWorkflowOptions(versioned('PINNED'), workerTools);
