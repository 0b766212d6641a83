export { agentCycle } from './agent-cycle';
export { agent } from './agent';
