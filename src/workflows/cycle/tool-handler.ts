import type { ChatTurn, CycleOutcome } from '../../core/cycle/input';
import type { SystemPromptId } from '../../core/cycle/model';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import type { CycleRun } from './cycle-run';

/**
 * Runs one call the model made to a workflow-side tool (`update_scratchpad`, `done`, or one a feature registers): it
 * may change `run.state`, and returns the step the trace records and the observation the model gets, if any. Every
 * other tool runs in the `runTool` activity (`CycleRun.runTool`).
 */
export type ToolHandler = (run: CycleRun, action: Action, step: number) => Promise<Handled>;

/** A chat turn's reply, ready before reflect runs. */
export interface ReadyReply {
  cycleId: string;
  reply: string;
  outcome: CycleOutcome;
}

/**
 * What a feature plugs into a cycle. The kernel knows no feature: each feature's workflow parses its own input, calls
 * `runCycle` with the features it runs with (each made fresh for the cycle, with its own state) and adds its own
 * fields to the result, as `@temporalio/ai-sdk`'s workflows call `generateText` with what they add.
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
  /** Fields every `runTool` call of this cycle carries, for the worker's tools to read; opaque to the kernel. */
  readonly callContext?: Readonly<Record<string, string>>;
  /** The work tools offered at this iteration, narrowed. */
  offer?(tools: readonly string[]): string[];
  /** The user message with what the feature appends to it. */
  decoratePrompt?(prompt: string): string;
  /** Whether the cycle is over once this iteration ends, as after `done`. */
  isFinished?(): boolean;
  /** The task loop's system prompt, by id; the first feature naming one wins over the kernel's `cycle`. */
  readonly systemPrompt?: SystemPromptId;
  /** What waits, in words, when a call of this cycle waits for a person; shown with the call. */
  readonly waitContext?: string;
  /** A chat turn (respond, then reflect) on this message instead of the task loop. */
  readonly chat?: ChatTurn;
  /** A chat turn's reply is ready; reflect runs after (design.md, The reply first). */
  replied?(reply: ReadyReply): void;
}
