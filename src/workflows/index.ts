import type { WorkflowTypes } from '../common/workflow-types';
import { agent } from './agent';
import { agentCycle } from './agent-cycle';
import { scheduledWake } from './scheduled-wake';
import { stagedTask } from './staged-task';

export { agent, agentCycle, scheduledWake, stagedTask };

// Clients start workflows by name from `common/workflow-types`; this keeps the two in step at compile time.
const _checked: WorkflowTypes = { agent, agentCycle, scheduledWake, stagedTask };
