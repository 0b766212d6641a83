import type { Sinks } from '@temporalio/workflow';

/** What a cycle's end tells the worker's metrics (sizes in characters). */
export interface CycleTelemetry {
  agentId: string;
  workflowType: string;
  kind: string;
  outcome: string;
  sectionSizes: Record<string, number>;
  charsAdded: number;
  charsRemoved: number;
  memoryChanged: boolean;
}

/**
 * The workflow side's reports to the worker's metrics. A sink call issues no command and, by default, is not made
 * while a history replays: a replay never counts a cycle twice.
 */
export interface TelemetrySinks extends Sinks {
  scratchpadTelemetry: {
    cycleEnded(cycle: CycleTelemetry): void;
    approvalWaiting(change: 1 | -1): void;
    directiveDropped(): void;
  };
}
