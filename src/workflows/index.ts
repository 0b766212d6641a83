export { agentCycle } from './agent-cycle';
