// Workflow code (the sandbox): bundled only into a worker with telemetry on, after Temporal's own OpenTelemetry
// interceptors, whose tracer this module's spans use. Spans made here end up at Temporal's exporter sink, which is not
// called while a history replays: a span that ended before a worker restart is not exported again by the next worker.
import * as otel from '@opentelemetry/api';
import { headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  type Next,
  type SignalInput,
  type StartChildWorkflowExecutionInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
  proxySinks,
  workflowInfo,
} from '@temporalio/workflow';
import { installTelemetryHook } from '../common/telemetry-hook';
import type { CycleResult } from '../core/cycle/input';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { GENAI } from './genai';
import { memoryChurn, memorySizes } from './memory-churn';
import type { TelemetrySinks } from './sinks';
import { runIdGenerator, useIdGenerator } from './workflow-ids';
import { workflowHook } from './workflow-hook';

const { scratchpadTelemetry } = proxySinks<TelemetrySinks>();

/** The workflow types that run one cycle of an agent through the kernel. */
const CYCLE_TYPES = new Set(['agentCycle', 'subagentCycle', 'investigationCycle', 'stageCycle']);
/** The agent's messages that start a turn, whose trace the turn's cycle continues. */
const TURN_UPDATES = new Set(['send', 'startTurn', 'runCycle', 'enqueue']);
const TURN_SIGNALS = new Set(['wake']);

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
    agentId: start.agentId ?? 'unknown',
    workflowType: workflowInfo().workflowType,
    kind: start.kind ?? 'task',
    outcome: result.outcome,
    sectionSizes: memorySizes(result.after),
    charsAdded: churn?.charsAdded ?? 0,
    charsRemoved: churn?.charsRemoved ?? 0,
    memoryChanged: (churn?.sections.length ?? 0) > 0,
  });
}

/** `invoke_agent {agent}` around a cycle workflow, with the cycle's outcome, usage and memory churn. */
class CycleInbound implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
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
    return tracer().startActiveSpan(`invoke_agent ${agent}`, { attributes }, async (span) => {
      try {
        const result = (await next(input)) as CycleResult;
        endCycle(span, start, result);
        return result;
      } catch (error) {
        span.setAttribute(GENAI.errorType, (error as { name?: string })?.name ?? 'Error');
        span.setStatus({ code: otel.SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }
}

/**
 * The agent workflow starts each turn's cycle from its main loop, whose trace is the agent's own start. The message
 * that asked for the turn (`send`, `runCycle`, `enqueue`, `wake`) left its context here; the cycle continues that
 * trace instead, so one turn is one trace from the client to the activities. Turns start in the order asked.
 */
class TurnTraces {
  private readonly waiting: otel.Context[] = [];

  remember(): void {
    // Bounded: turns asked while earlier ones wait are few, and a context is only a trace and a span id.
    if (this.waiting.length < 100) this.waiting.push(otel.context.active());
  }

  continueTurn(input: StartChildWorkflowExecutionInput): StartChildWorkflowExecutionInput {
    if (input.workflowType !== 'agentCycle') return input;
    const turn = this.waiting.shift();
    return turn ? { ...input, headers: otel.context.with(turn, () => headersWithContext(input.headers)) } : input;
  }
}

class AgentInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly turns: TurnTraces) {}

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    if (TURN_UPDATES.has(input.name)) this.turns.remember();
    return next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    if (TURN_SIGNALS.has(input.signalName)) this.turns.remember();
    return next(input);
  }
}

class AgentOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly turns: TurnTraces) {}

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    return next(this.turns.continueTurn(input));
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const { workflowType: type, runId } = workflowInfo();
  useIdGenerator(runIdGenerator(runId));
  installTelemetryHook(workflowHook(scratchpadTelemetry));
  if (CYCLE_TYPES.has(type)) return { inbound: [new CycleInbound()] };
  if (type === 'agent') {
    const turns = new TurnTraces();
    return { inbound: [new AgentInbound(turns)], outbound: [new AgentOutbound(turns)] };
  }
  return {};
};
