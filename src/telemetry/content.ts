import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Attributes that carry what people and models wrote: prompts, replies, tool arguments and results, memory text.
 * Workflow code adds them unconditionally (it cannot read the environment); the worker drops them here unless
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
 */
export const CONTENT_ATTRIBUTES: readonly string[] = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'gen_ai.memory.content',
  // Temporal's exporter puts the workflow's info on each workflow span: an agent's memo holds its whole memory.
  'memo',
  'lastResult',
  'lastFailure',
];

/**
 * Parts of the workflow info Temporal's exporter puts on every workflow span that repeat others or describe the SDK's
 * internals: dropped always, since encoding them was most of what tracing cost a worker (bench/tracing.ts). What
 * stays names the execution: workflowId, runId, workflowType, namespace, taskQueue, attempt, parent.
 */
const NOISE_ATTRIBUTES: readonly string[] = [
  'unsafe',
  'typedSearchAttributes',
  'searchAttributes',
  'currentBuildId',
  'currentDeploymentVersion',
  'priority',
  'retryPolicy',
  'cronSchedule',
  'cronScheduleToScheduleInterval',
  'executionExpirationTime',
  'executionTimeoutMs',
  'runTimeoutMs',
  'taskTimeoutMs',
  'historyLength',
  'historySize',
  'continueAsNewSuggested',
  'suggestedContinueAsNewReasons',
  'targetWorkerDeploymentVersionChanged',
  'startTime',
  'runStartTime',
  'continuedFromExecutionRunId',
  'originalExecutionRunId',
  'firstExecutionRunId',
  'root',
];

/** A span processor that removes content attributes before `next` sees the span, unless content is captured. */
export function contentFilter(next: SpanProcessor, captureContent: boolean): SpanProcessor {
  const dropped = captureContent ? NOISE_ATTRIBUTES : [...NOISE_ATTRIBUTES, ...CONTENT_ATTRIBUTES];
  return {
    onStart: (span: Span, context: Context) => next.onStart(span, context),
    onEnd: (span: ReadableSpan) => {
      // Spans from workflow code arrive as plain objects; the SDK's own keep a mutable attribute map too.
      const attributes = span.attributes as Record<string, unknown>;
      for (const key of dropped) delete attributes[key];
      next.onEnd(span);
    },
    forceFlush: () => next.forceFlush(),
    shutdown: () => next.shutdown(),
  };
}
