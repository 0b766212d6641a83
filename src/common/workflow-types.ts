import { z } from 'zod';
import { getterOf } from '../core/shareable';
import { validateAgentId } from './ids';
import type { AgentInput } from '../core/agent/agent';
import type { CycleResult } from '../core/cycle/input';
import type { AgentCycleInput } from '../core/agent/cycle-input';
import type { SubagentCycleInput } from '../core/agent/subagent';
import type { InvestigationInput } from '../core/research/investigation-input';
import type { StageCycleInput, StageCycleResult, StagedInput, StagedResult } from '../core/staged/input';
import type { ToolDescriptor } from '../core/tools/descriptor';
import type { ResearchInput, ResearchResult, WorkerInput, WorkerResult } from '../core/research/run';

/**
 * The workflows' names and signatures, for clients that start them by name: a client never imports workflow code,
 * and `src/workflows/index.ts` is checked against these at compile time.
 */
export interface WorkflowTypes {
  agent: (input: AgentInput) => Promise<void>;
  agentCycle: (input: AgentCycleInput) => Promise<CycleResult>;
  subagentCycle: (input: SubagentCycleInput) => Promise<CycleResult>;
  investigationCycle: (input: InvestigationInput) => Promise<CycleResult & { boardEntry?: string }>;
  stageCycle: (input: StageCycleInput) => Promise<StageCycleResult>;
  scheduledWake: (input: WakeAgentArgs) => Promise<WakeAgentResult>;
  stagedTask: (input: StagedInput) => Promise<StagedResult>;
  research: (input: ResearchInput) => Promise<ResearchResult>;
  researchWorker: (input: WorkerInput) => Promise<WorkerResult>;
  workerTools: () => Promise<WorkerToolsResult>;
}

/** Every tool a worker has, and the tool sources it could not list. */
export interface WorkerToolsResult {
  tools: ToolDescriptor[];
  failures: string[];
  /** What the worker offers agents whose settings name no tools; absent, every tool. */
  defaults?: string[];
  /** The worker's default model, how it is asked for calls and its context window, where known. */
  model?: WorkerModel;
}

/** A worker's default model as `scratchpad tools` shows it. */
export interface WorkerModel {
  spec: string;
  /** `tools`, `json` or `text` for an OpenAI-compatible server; absent for providers with one way. */
  protocol?: string;
  contextTokens?: number;
  /** Why the protocol is not known yet (the server did not answer the probe). */
  problem?: string;
}

/** What a schedule's action passes on: the agent to wake, its task queue, and the tasks to enqueue. */
export const WakeAgentArgsSchema = getterOf(
  z.object({
    agentId: z.string().refine((agentId) => validateAgentId(agentId) === undefined, {
      message: 'invalid agent id: use 1-128 letters, digits, ".", "_" or "-"',
    }),
    taskQueue: z.string().min(1).max(1000),
    tasks: z.array(z.string().trim().min(1).max(5000)).default([]),
  }),
);
export type WakeAgentArgs = z.input<ReturnType<typeof WakeAgentArgsSchema>>;

/** The agent execution a wake reached. */
export interface WakeAgentResult {
  workflowId: string;
  runId: string;
}

/**
 * Every workflow type that runs a cycle (`runCycle`), one per feature: what lists and queries of cycles look for. An
 * agent's own cycles are `agentCycle`; its sub-agents', a research run's investigations and a staged run's stages
 * each have their own, which the Web UI shows as the execution's type.
 */
export const CYCLE_WORKFLOW_TYPES = ['agentCycle', 'subagentCycle', 'investigationCycle', 'stageCycle'] as const;

/** Whether a workflow type is one that runs a cycle. */
export function isCycleType(type: string): boolean {
  return (CYCLE_WORKFLOW_TYPES as readonly string[]).includes(type);
}

export type AgentWorkflow = WorkflowTypes['agent'];
export type AgentCycleWorkflow = WorkflowTypes['agentCycle'];
export type StagedTaskWorkflow = WorkflowTypes['stagedTask'];
export type ResearchWorkflow = WorkflowTypes['research'];
