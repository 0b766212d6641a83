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
];

/** A span processor that removes content attributes before `next` sees the span, unless content is captured. */
export function contentFilter(next: SpanProcessor, captureContent: boolean): SpanProcessor {
  if (captureContent) return next;
  return {
    onStart: (span: Span, context: Context) => next.onStart(span, context),
    onEnd: (span: ReadableSpan) => {
      // Spans from workflow code arrive as plain objects; the SDK's own keep a mutable attribute map too.
      const attributes = span.attributes as Record<string, unknown>;
      for (const key of CONTENT_ATTRIBUTES) delete attributes[key];
      next.onEnd(span);
    },
    forceFlush: () => next.forceFlush(),
    shutdown: () => next.shutdown(),
  };
}
