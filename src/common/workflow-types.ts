import type { AgentInput } from '../core/agent/agent';
import type { CycleInput, CycleResult } from '../core/cycle/input';
import type { StagedInput, StagedResult } from '../core/staged/input';
import type { ResearchInput, ResearchResult, WorkerInput, WorkerResult } from '../core/research/run';

/**
 * The workflows' names and signatures, for clients that start them by name: a client never imports workflow code,
 * and `src/workflows/index.ts` is checked against these at compile time.
 */
export interface WorkflowTypes {
  agent: (input: AgentInput) => Promise<void>;
  agentCycle: (input: CycleInput) => Promise<CycleResult>;
  scheduledWake: (input: WakeAgentArgs) => Promise<WakeAgentResult>;
  stagedTask: (input: StagedInput) => Promise<StagedResult>;
  research: (input: ResearchInput) => Promise<ResearchResult>;
  researchWorker: (input: WorkerInput) => Promise<WorkerResult>;
}

/** What a schedule's action passes on: the agent to wake, its task queue, and the tasks to enqueue. */
export interface WakeAgentArgs {
  agentId: string;
  taskQueue: string;
  tasks?: string[];
}

/** The agent execution a wake reached. */
export interface WakeAgentResult {
  workflowId: string;
  runId: string;
}

export type AgentWorkflow = WorkflowTypes['agent'];
export type AgentCycleWorkflow = WorkflowTypes['agentCycle'];
export type StagedTaskWorkflow = WorkflowTypes['stagedTask'];
export type ResearchWorkflow = WorkflowTypes['research'];
