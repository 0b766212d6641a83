// Client side: what an application that starts, talks to and reads agents, research runs and staged runs needs.
// No worker code is loaded.
export * from './core/scratchpad/scratchpad';
export * from './core/agent/agent';
export * from './core/cycle/input';
export type { BoardEntry } from './core/research/board';
export type { ResearchInput, ResearchResult, ResearchStatus, ResearchUsage } from './core/research/run';
export type { StagedInput, StagedResult } from './core/staged/input';
export * from './core/tools/approval';
export { renderMarkdown } from './core/scratchpad/render';
export * from './common/messages/agent';
export * from './common/messages/cycle';
export * from './common/messages/research';
export * from './common/messages/staged';
export * from './common/ids';
export * from './common/search-attributes';
export type * from './common/workflow-types';
// One facade per workflow.
export { Agents, type AgentTarget, type CycleSummary } from './clients/agents';
export { ResearchRuns, type ResearchRunSummary } from './clients/research-runs';
export { StagedRuns } from './clients/staged-runs';
export { Approvals, type PendingCall, defaultDecider } from './clients/approvals';
export { NoWorkerError, workerToolCatalogue } from './clients/worker-tools';
export type { CatalogueEntry, ToolDescriptor, ToolPolicy, ToolSource } from './core/tools/descriptor';
export { selectTools } from './core/tools/select';
export { connectClient } from './clients/connection';
export {
  type CycleStates,
  type History,
  agentSettingsFromHistory,
  cycleStatesFromHistory,
  fetchHistory,
} from './clients/histories';
export * from './clients/time-travel';
export * from './core/agent/time-travel';
export { type LineChange, type SectionDiff, lineChanges, memoryDiff } from './core/agent/memory-diff';
export type { ReplyArgs } from './core/agent/reply';
export * from './clients/schedules';
export * from './clients/snapshots';
