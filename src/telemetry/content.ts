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

/** Parts of the workflow info on workflow spans that repeat others or only describe the SDK's internals. */
const NOISE_ATTRIBUTES: readonly string[] = ['unsafe', 'typedSearchAttributes'];

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
