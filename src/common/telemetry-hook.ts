import type { Scratchpad } from '../core/scratchpad/scratchpad';

/** One `update_scratchpad` as the cycle applied it: before and after (with any archiving), or why it was refused. */
export interface MemoryUpdateEvent {
  agentId: string;
  before: Scratchpad;
  after: Scratchpad;
  /** The call's arguments, as the model gave them. */
  args: unknown;
  /** Why the update was rejected whole; absent when it applied. */
  rejected?: string;
  /** Characters the budget moved to the archive after the update. */
  archivedChars: number;
}

/** A tool call that waits for a person's decision. */
export interface ApprovalWaitEvent {
  tool: string;
  /** The approval's call id (`<iteration>.<n>`), as `approve` and `deny` name it. */
  callId: string;
  cycleId: string;
}

/** What workflow code tells telemetry of, when a worker runs with telemetry on. */
export interface WorkflowTelemetryHook {
  memoryUpdated(event: MemoryUpdateEvent): void;
  /** A call starts waiting; the function returned hears how the wait ended. */
  approvalWaiting(event: ApprovalWaitEvent): (decision: { decision: string; by: string }) => void;
  /** A directive signal was dropped (malformed, oversized, past a cap). */
  directiveDropped(): void;
  /** The agent adopted a cycle: its memory now, and how many turns in a row left it as it was. */
  cycleAdopted(memory: Scratchpad, turnsSinceMemoryChanged: number): void;
}

// A global of the workflow's own (the SDK gives each workflow its own globals), set by telemetry's workflow
// interceptor module, which a worker bundles only with telemetry on.
const HOOK = Symbol.for('durable-scratchpad.telemetry');

/** The workflow's telemetry hook; undefined when the worker runs without telemetry, which then costs one lookup. */
export function telemetryHook(): WorkflowTelemetryHook | undefined {
  return (globalThis as Record<symbol, WorkflowTelemetryHook | undefined>)[HOOK];
}

/** Installs the hook for the current workflow (telemetry's workflow interceptors do, as the workflow starts). */
export function installTelemetryHook(hook: WorkflowTelemetryHook): void {
  (globalThis as Record<symbol, WorkflowTelemetryHook | undefined>)[HOOK] = hook;
}
