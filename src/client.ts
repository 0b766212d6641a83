// The package's public client: the facades an application starts, messages and reads agents, research runs and
// staged runs with, and the types their calls take and return. It loads no worker code and needs none of the
// worker's dependencies. The surface is recorded in api/durable-scratchpad.api.md (`npm run api` updates it);
// the command line, tests and benches import internals by their own paths.

// Connecting.
export { type ClientSettings, connectClient } from './clients/connection';

// One facade per workflow.
export { Agents, type AgentTarget, type CycleSummary } from './clients/agents';
export { ResearchRuns, type ResearchRunSummary } from './clients/research-runs';
export { StagedRuns, type RunNotes } from './clients/staged-runs';
export { Approvals, type PendingCall } from './clients/approvals';
export { NoWorkerError, workerToolCatalogue } from './clients/worker-tools';

// A chat turn's stream (Agents.stream, Agents.resume), and its relay to a browser.
export type { FollowOptions, TurnEvent, TurnStream } from './clients/turn-stream';
export { relayTurn } from './clients/turn-sse';

// Schedules, snapshots and time travel: functions over a client.
export {
  type AgentScheduleInfo,
  type AgentScheduleOptions,
  type ScheduleChange,
  type ScheduleTiming,
  changeAgentSchedule,
  createAgentSchedule,
  describeAgentSchedule,
  listAgentSchedules,
} from './clients/schedules';
export { type Snapshot, agentSnapshots, snapshotYaml, writeSnapshots } from './clients/snapshots';
export {
  type CycleRef,
  type CycleState,
  type Fork,
  type MemoryDiff,
  TimeTravelError,
  cycleState,
  diffCycles,
  forkAgent,
  rewindAgent,
} from './clients/time-travel';

// The scratchpad, and the ids workflows are named by.
export { type Scratchpad, ScratchpadSchema, defaultScratchpad, enqueueTasks } from './core/scratchpad/scratchpad';
export { renderMarkdown } from './core/scratchpad/render';
export { agentWorkflowId, cycleWorkflowId, researchWorkflowId, stagedWorkflowId } from './common/ids';

// What the facades' calls take and return.
export type {
  AgentSettings,
  AgentStatus,
  CycleRecord,
  DirectiveRecord,
  EnqueueArgs,
  InjectArgs,
  RunCycleArgs,
  SendArgs,
  SendResult,
  TurnStart,
  WakeArgs,
} from './core/agent/agent';
export type { CycleOutcome, CycleResult, TraceEntry, Trigger } from './core/cycle/input';
export type { Origin, RewindArgs, RewindRecord } from './core/agent/time-travel';
export type { CycleStates, History } from './clients/histories';
export type { BoardEntry } from './core/research/board';
export type { EntryType } from './core/research/board-schema';
export type { ResearchApproval } from './core/research/approvals';
export type {
  MirrorStatus,
  ResearchInput,
  ResearchOutcome,
  ResearchResult,
  ResearchStatus,
  ResearchUsage,
} from './core/research/run';
export type { WriteResult } from './common/messages/research';
export type { StagedInput, StagedResult, StageRecord, Verification } from './core/staged/input';
export type { StagedProgress } from './common/messages/staged';
export type { Decision, DecisionArgs, PendingApproval } from './core/tools/approval';
export type { CatalogueEntry, ToolDescriptor, ToolPolicy, ToolSource } from './core/tools/descriptor';
export type {
  AgentWorkflow,
  ResearchWorkflow,
  StagedTaskWorkflow,
  WorkerModel,
  WorkerToolsResult,
} from './common/workflow-types';
