// Workflow code (the sandbox): what workflow code reports through its telemetry hook, as spans and metric sinks.
import * as otel from '@opentelemetry/api';
import { workflowInfo } from '@temporalio/workflow';
import type { ApprovalWaitEvent, MemoryUpdateEvent, WorkflowTelemetryHook } from '../common/telemetry-hook';
import { GENAI } from './genai';
import { memoryChurn, memorySizes } from './memory-churn';
import type { TelemetrySinks } from './sinks';

const tracer = () => otel.trace.getTracer('durable-scratchpad');

/** `update_memory`: what one `update_scratchpad` changed, or why it was rejected. */
function updateMemorySpan({ agentId, before, after, args, rejected, archivedChars }: MemoryUpdateEvent): void {
  const churn = memoryChurn(before, after);
  const span = tracer().startSpan('update_memory', {
    attributes: {
      [GENAI.operation]: 'update_memory',
      'gen_ai.memory.store.id': agentId,
      'gen_ai.memory.store.name': 'scratchpad',
      'gen_ai.memory.sections': churn.sections,
      'gen_ai.memory.chars_added': churn.charsAdded,
      'gen_ai.memory.chars_removed': churn.charsRemoved,
      'gen_ai.memory.archived_chars': archivedChars,
      // Dropped by the worker unless content is captured (telemetry/content.ts).
      'gen_ai.memory.content': JSON.stringify(args ?? null).slice(0, 16 * 1024),
    },
  });
  if (rejected !== undefined) {
    span.setAttributes({ [GENAI.errorType]: 'rejected', 'gen_ai.memory.rejected_reason': rejected.slice(0, 1000) });
    span.setStatus({ code: otel.SpanStatusCode.ERROR, message: 'update rejected' });
  }
  span.end();
}

/** `await_approval {tool}` from the request to the decision, and the waiting calls' gauge. */
function approvalSpan(sinks: TelemetrySinks['scratchpadTelemetry'], event: ApprovalWaitEvent) {
  const span = tracer().startSpan(`await_approval ${event.tool}`, {
    attributes: {
      [GENAI.operation]: 'await_approval',
      [GENAI.toolName]: event.tool,
      'durable_scratchpad.approval.call_id': event.callId,
      'durable_scratchpad.cycle.id': event.cycleId,
    },
  });
  sinks.approvalWaiting(1);
  return (decision: { decision: string; by: string }) => {
    span.setAttributes({
      'durable_scratchpad.approval.decision': decision.decision,
      'durable_scratchpad.approval.by': decision.by,
    });
    span.end();
    sinks.approvalWaiting(-1);
  };
}

/** The agent whose home this workflow is (`agent/<agent>`). */
function agentOfHome(): string {
  return workflowInfo().workflowId.replace(/^agent\//, '');
}

/** The hook telemetry's interceptors install in each workflow. */
export function workflowHook(sinks: TelemetrySinks['scratchpadTelemetry']): WorkflowTelemetryHook {
  return {
    memoryUpdated: updateMemorySpan,
    approvalWaiting: (event) => approvalSpan(sinks, event),
    directiveDropped: () => sinks.directiveDropped(),
    cycleAdopted: (memory, turnsSinceChange) =>
      sinks.agentMemory({ agentId: agentOfHome(), sectionSizes: memorySizes(memory), turnsSinceChange }),
  };
}
