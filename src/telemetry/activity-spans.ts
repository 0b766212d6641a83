import { type Attributes, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import type { ModelRequest, ModelResponse } from '../core/cycle/model';
import type { ToolCallInput } from '../core/tools/observation';
import { GENAI, agentOfWorkflowId, contentJson, modelOfSpec, phaseOfSystem, specOfCall } from './genai';
import type { TelemetryMetrics } from './metrics';

/** What the activity spans need to know of the worker. */
export interface ActivitySpanOptions {
  captureContent: boolean;
  /** The worker's default model spec, for requests that name none. */
  defaultModel?: string;
  /** Where a tool comes from (builtin, code, mcp) and whether its calls ask a person first. */
  toolInfo?: (name: string) => Promise<{ source: string; approval: string } | undefined>;
  metrics?: TelemetryMetrics;
}

const tracer = () => trace.getTracer('durable-scratchpad');

function failureType(error: unknown): string {
  const typed = error as { type?: unknown; name?: unknown };
  return typeof typed?.type === 'string' ? typed.type : typeof typed?.name === 'string' ? typed.name : 'Error';
}

function agentAttributes(context: ActivityContext): Attributes {
  const agent = context.info.workflowExecution && agentOfWorkflowId(context.info.workflowExecution.workflowId);
  return agent ? { [GENAI.agentId]: agent, [GENAI.conversationId]: agent } : {};
}

/** Runs `work` with `span` active, ending it with the error's type and status when it throws. */
async function within<T>(span: Span, work: () => Promise<T>, onError?: (type: string) => void): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    const type = failureType(error);
    span.setAttribute(GENAI.errorType, type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    onError?.(type);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * `chat {model}` around `callModel` and `execute_tool {name}` around `runTool`, inside the activity's own span from
 * Temporal's interceptor; the model call's token usage and duration go to the GenAI histograms.
 */
export class GenAiActivityInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly context: ActivityContext,
    private readonly options: ActivitySpanOptions,
  ) {}

  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.context.info.activityType;
    if (type === 'callModel') return this.chat(input, next);
    if (type === 'runTool') return this.tool(input, next);
    return next(input);
  }

  private chat(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const request = (input.args[0] ?? {}) as Partial<ModelRequest>;
    const { provider, model } = modelOfSpec(specOfCall(request.model, request.fallback, this.options.defaultModel));
    const metricAttributes: Attributes = {
      [GENAI.operation]: 'chat',
      [GENAI.provider]: provider,
      [GENAI.requestModel]: model,
    };
    const attributes: Attributes = {
      ...metricAttributes,
      ...agentAttributes(this.context),
      [GENAI.phase]: phaseOfSystem(request.system),
      ...(request.maxTokens !== undefined && { [GENAI.requestMaxTokens]: request.maxTokens }),
      ...(this.options.captureContent && { [GENAI.inputMessages]: contentJson(request.messages) }),
    };
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const span = tracer().startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes });
    return within(
      span,
      async () => {
        const response = (await next(input)) as ModelResponse;
        const usage = response.usage;
        span.setAttributes({
          [GENAI.responseModel]: response.model,
          [GENAI.finishReasons]: response.stopReason ? [response.stopReason] : [],
          [GENAI.inputTokens]: usage.inputTokens,
          [GENAI.outputTokens]: usage.outputTokens,
          [GENAI.cacheReadTokens]: usage.cacheReadTokens,
          [GENAI.cacheCreationTokens]: usage.cacheWriteTokens,
          ...(this.options.captureContent && {
            [GENAI.outputMessages]: contentJson([
              { role: 'assistant', text: response.text, toolCalls: response.toolCalls },
            ]),
          }),
        });
        this.options.metrics?.modelCall(
          { ...metricAttributes, [GENAI.responseModel]: response.model },
          seconds(),
          usage,
        );
        return response;
      },
      (errorType) => this.options.metrics?.modelCall({ ...metricAttributes, [GENAI.errorType]: errorType }, seconds()),
    );
  }

  private async tool(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const call = (input.args[0] ?? {}) as Partial<ToolCallInput>;
    const name = call.name ?? 'unknown';
    const info = await this.options.toolInfo?.(name).catch(() => undefined);
    const attributes: Attributes = {
      [GENAI.operation]: 'execute_tool',
      [GENAI.toolName]: name,
      [GENAI.toolType]: 'function',
      [GENAI.toolCallId]: call.idempotencyKey ?? `${call.cycleId}/step/${call.step}`,
      ...agentAttributes(this.context),
      ...(info && { [GENAI.toolSource]: info.source, [GENAI.toolApproval]: info.approval }),
      ...(this.options.captureContent && { [GENAI.toolArguments]: contentJson(call.args) }),
    };
    const span = tracer().startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes });
    return within(span, async () => {
      const observation = (await next(input)) as { ok?: boolean; error?: unknown } | undefined;
      if (observation?.ok === false) {
        span.setAttribute(GENAI.errorType, 'tool_error');
        // The tool's error text may quote what it was given: content, so only the fact of the error.
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool returned an error' });
      }
      if (this.options.captureContent) span.setAttribute(GENAI.toolResult, contentJson(observation));
      return observation;
    });
  }
}
