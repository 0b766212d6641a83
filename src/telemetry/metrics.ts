import { type Attributes, metrics } from '@opentelemetry/api';
import type { AgentMemoryTelemetry, CycleTelemetry } from './sinks';

// The GenAI conventions' advised bucket boundaries for these two histograms.
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** The worker's instruments, on the global meter provider (this package's SDK, or the user's own). */
export function telemetryMetrics() {
  const meter = metrics.getMeter('durable-scratchpad');
  const tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
    unit: '{token}',
    description: 'Tokens used per model call, by type (input, output)',
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const operationDuration = meter.createHistogram('gen_ai.client.operation.duration', {
    unit: 's',
    description: 'Duration of a model call',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const cycles = meter.createCounter('durable_scratchpad.cycles', {
    unit: '{cycle}',
    description: 'Cycles ended, by outcome',
  });
  const memorySize = meter.createGauge('durable_scratchpad.memory.size', {
    unit: '{character}',
    description: "An agent's memory after its last cycle, by section",
  });
  const memoryChurn = meter.createHistogram('durable_scratchpad.memory.churn', {
    unit: '{character}',
    description: 'Characters of memory added plus removed in one turn',
  });
  const turnsSince = meter.createGauge('durable_scratchpad.memory.turns_since_change', {
    unit: '{turn}',
    description: "Turns since an agent's memory last changed",
  });
  const approvalsWaiting = meter.createUpDownCounter('durable_scratchpad.approvals.waiting', {
    unit: '{call}',
    description: 'Tool calls waiting for a person',
  });
  const directivesDropped = meter.createCounter('durable_scratchpad.directives.dropped', {
    unit: '{directive}',
    description: 'Directives dropped (malformed, oversized, past a cap)',
  });
  return {
    modelCall(attributes: Attributes, seconds: number, usage?: { inputTokens: number; outputTokens: number }) {
      operationDuration.record(seconds, attributes);
      if (!usage) return;
      tokenUsage.record(usage.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
      tokenUsage.record(usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    },
    cycleEnded(cycle: CycleTelemetry) {
      const attributes = { kind: cycle.kind, 'durable_scratchpad.workflow.type': cycle.workflowType };
      cycles.add(1, { ...attributes, outcome: cycle.outcome });
      memoryChurn.record(cycle.charsAdded + cycle.charsRemoved, attributes);
    },
    agentMemory({ agentId, sectionSizes, turnsSinceChange }: AgentMemoryTelemetry) {
      const agent = { 'gen_ai.agent.id': agentId };
      for (const [section, chars] of Object.entries(sectionSizes)) memorySize.record(chars, { ...agent, section });
      turnsSince.record(turnsSinceChange, agent);
    },
    approvalWaiting(change: 1 | -1) {
      approvalsWaiting.add(change);
    },
    directiveDropped(workflowType: string) {
      directivesDropped.add(1, { 'durable_scratchpad.workflow.type': workflowType });
    },
  };
}

export type TelemetryMetrics = ReturnType<typeof telemetryMetrics>;
