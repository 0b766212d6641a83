export { agentCycle } from './agent-cycle';
export { agent } from './agent';
export { scheduledWake } from './scheduled-wake';
