import type { WorkflowTypes } from '../common/workflow-types';
import { agent } from './agent';
import { agentCycle } from './agent-cycle';
import { research } from './research';
import { researchWorker } from './research-worker';
import { scheduledWake } from './scheduled-wake';
import { stagedTask } from './staged-task';

export { agent, agentCycle, scheduledWake, stagedTask, research, researchWorker };

// Clients start workflows by name from `common/workflow-types`; this keeps the two in step at compile time.
const _checked: WorkflowTypes = { agent, agentCycle, scheduledWake, stagedTask, research, researchWorker };
