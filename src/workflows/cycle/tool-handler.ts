import type { CycleResult } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation, ToolCallInput } from '../../core/tools/observation';
import type { CycleRun } from './cycle-run';

/**
 * Runs one call the model made to a workflow-side tool (`update_scratchpad`, `done`, `spawn_subagent`,
 * `board_write`, `write_files`, ...): it may change `run.state`, and returns the step the trace records and the
 * observation the model gets, if any. Every other tool runs in the `runTool` activity (`CycleRun.runTool`).
 */
export type ToolHandler = (run: CycleRun, action: Action, step: number) => Promise<Handled>;

/**
 * What a feature plugs into a cycle. The kernel knows no feature: the workflow that starts a cycle of some kind
 * (workflows/agent-cycle.ts) hands it the features of that kind, each made fresh for the cycle with its own state.
 */
export interface CycleFeature {
  /** Workflow-side tools by name. Offered where the cycle's work tools name them, or always for a phase's verbs. */
  readonly handlers?: Readonly<Record<string, ToolHandler>>;
  /** Workflow-side tools the feature answers for without a handler (it takes them out of the offer). */
  readonly owns?: readonly string[];
  /** A reason to refuse a call to the `runTool` activity before it runs, e.g. a cap on written paths. */
  refuse?(action: Action): string | undefined;
  /** Sees what a `runTool` call returned. */
  observe?(action: Action, observation: Observation): void;
  /** Fields every `runTool` call of this cycle carries, e.g. the research board `web_fetch` checks tombstones on. */
  readonly callContext?: Pick<ToolCallInput, 'boardId' | 'stagedRunId'>;
  /** The work tools offered at this iteration, narrowed. */
  offer?(tools: readonly string[]): string[];
  /** The user message with what the feature appends to it. */
  decoratePrompt?(prompt: string): string;
  /** Whether the cycle is over once this iteration ends, as after `done` (an accepted board write ends one). */
  isFinished?(): boolean;
  /** Fields the feature adds to the cycle's result. */
  result?(): Partial<CycleResult>;
}
