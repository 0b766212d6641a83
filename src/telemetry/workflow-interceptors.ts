// Workflow code (the sandbox): bundled only into a worker with telemetry on, with Temporal's own OpenTelemetry
// interceptors first (telemetry/temporal-spans.ts), whose tracer this module's spans use. Spans made here end up at Temporal's exporter sink, which is not
// called while a history replays: a span that ended before a worker restart is not exported again by the next worker.
import * as otel from '@opentelemetry/api';
import {
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  proxySinks,
  workflowInfo,
} from '@temporalio/workflow';
import { installTelemetryHook } from '../common/telemetry-hook';
import type { CycleResult } from '../core/cycle/input';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { GENAI } from './genai';
import { memoryChurn } from './memory-churn';
import type { TelemetrySinks } from './sinks';
import { runIdGenerator, useIdGenerator } from './workflow-ids';
import { workflowHook } from './workflow-hook';
import { agentTurnInterceptors } from './turn-traces';
import { temporalInterceptors } from './temporal-spans';

const { scratchpadTelemetry } = proxySinks<TelemetrySinks>();

/** The workflow types that run one cycle of an agent through the kernel. */
const CYCLE_TYPES = new Set(['agentCycle', 'subagentCycle', 'investigationCycle', 'stageCycle']);

const tracer = () => otel.trace.getTracer('durable-scratchpad');

interface CycleStart {
  agentId?: string;
  cycleId?: string;
  kind?: string;
  message?: string;
  before?: Scratchpad;
}

/** Ends `span` with what the cycle's result says, and reports the cycle to the worker's metrics. */
function endCycle(span: otel.Span, start: CycleStart, result: CycleResult): void {
  const churn = start.before ? memoryChurn(start.before, result.after) : undefined;
  span.setAttributes({
    'durable_scratchpad.cycle.outcome': result.outcome,
    'durable_scratchpad.cycle.iterations': result.iterations,
    [GENAI.inputTokens]: result.usage.inputTokens,
    [GENAI.outputTokens]: result.usage.outputTokens,
    [GENAI.cacheReadTokens]: result.usage.cacheReadTokens,
    [GENAI.cacheCreationTokens]: result.usage.cacheWriteTokens,
    ...(churn && {
      'gen_ai.memory.sections': churn.sections,
      'gen_ai.memory.chars_added': churn.charsAdded,
      'gen_ai.memory.chars_removed': churn.charsRemoved,
    }),
    'gen_ai.memory.archived_chars': (result.archived ?? []).reduce((sum, entry) => sum + entry.chars, 0),
    ...(result.reply !== undefined && {
      [GENAI.outputMessages]: JSON.stringify([{ role: 'assistant', text: result.reply }]).slice(0, 16 * 1024),
    }),
  });
  for (const decision of result.decisions ?? []) {
    span.addEvent('approval', {
      [GENAI.toolName]: decision.tool,
      [GENAI.toolCallId]: decision.callId,
      'durable_scratchpad.approval.decision': decision.decision,
      'durable_scratchpad.approval.by': decision.by,
      'durable_scratchpad.approval.at': decision.at,
    });
  }
  if (result.outcome === 'failed') span.setStatus({ code: otel.SpanStatusCode.ERROR, message: 'cycle failed' });
  scratchpadTelemetry.cycleEnded({
    workflowType: workflowInfo().workflowType,
    kind: start.kind ?? 'task',
    outcome: result.outcome,
    charsAdded: churn?.charsAdded ?? 0,
    charsRemoved: churn?.charsRemoved ?? 0,
  });
}

/** `invoke_agent {agent}` around a cycle workflow, with the cycle's outcome, usage and memory churn. */
class CycleInbound implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const start = (input.args[0] ?? {}) as CycleStart;
    const agent = start.agentId ?? 'unknown';
    const attributes: otel.Attributes = {
      [GENAI.operation]: 'invoke_agent',
      [GENAI.agentId]: agent,
      [GENAI.agentName]: agent,
      [GENAI.conversationId]: agent,
      'durable_scratchpad.cycle.id': start.cycleId ?? workflowInfo().workflowId,
      'durable_scratchpad.cycle.kind': start.kind ?? 'task',
      'durable_scratchpad.workflow.type': workflowInfo().workflowType,
      ...(start.message !== undefined && {
        [GENAI.inputMessages]: JSON.stringify([{ role: 'user', text: start.message }]).slice(0, 16 * 1024),
      }),
    };
    const span = tracer().startSpan(`invoke_agent ${agent}`, { attributes });
    // The workflow gets the promise `next` made, not one chained after it: no microtask more than without telemetry.
    const result = otel.context.with(otel.trace.setSpan(otel.context.active(), span), () => next(input));
    result.then(
      (value) => {
        endCycle(span, start, value as CycleResult);
        span.end();
      },
      (error: unknown) => {
        span.setAttribute(GENAI.errorType, (error as { name?: string })?.name ?? 'Error');
        span.setStatus({ code: otel.SpanStatusCode.ERROR });
        span.end();
      },
    );
    return result;
  }
}

/** This package's interceptors for a workflow of `type`. */
function ownInterceptors(type: string): WorkflowInterceptors {
  if (CYCLE_TYPES.has(type)) return { inbound: [new CycleInbound()] };
  if (type === 'agent') return agentTurnInterceptors();
  return {};
}

export const interceptors = (): WorkflowInterceptors => {
  const { workflowType: type, runId } = workflowInfo();
  // Temporal's first: making them registers the workflow's tracer provider, whose ids then come from the run id.
  const temporal = temporalInterceptors();
  useIdGenerator(runIdGenerator(runId));
  installTelemetryHook(workflowHook(scratchpadTelemetry));
  const own = ownInterceptors(type);
  return {
    inbound: [...temporal.inbound, ...(own.inbound ?? [])],
    outbound: [...temporal.outbound, ...(own.outbound ?? [])],
    internals: temporal.internals,
  };
};
