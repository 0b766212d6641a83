import type { Sinks } from '@temporalio/workflow';

/** What a cycle's end tells the worker's metrics (characters). */
export interface CycleTelemetry {
  workflowType: string;
  kind: string;
  outcome: string;
  charsAdded: number;
  charsRemoved: number;
}

/** An agent's memory once it adopted a cycle: characters by section, and turns since it last changed. */
export interface AgentMemoryTelemetry {
  agentId: string;
  sectionSizes: Record<string, number>;
  turnsSinceChange: number;
}

/**
 * The workflow side's reports to the worker's metrics. A sink call issues no command and, by default, is not made
 * while a history replays: a replay never counts a cycle twice.
 */
export interface TelemetrySinks extends Sinks {
  scratchpadTelemetry: {
    cycleEnded(cycle: CycleTelemetry): void;
    agentMemory(memory: AgentMemoryTelemetry): void;
    approvalWaiting(change: 1 | -1): void;
    directiveDropped(): void;
  };
}
