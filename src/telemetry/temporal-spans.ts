// Workflow code (the sandbox). Temporal's OpenTelemetry workflow interceptors, with the calls that start something
// (the run, an activity, a child, a signal to another workflow) made timing-transparent: Temporal's versions wrap
// them in async functions, which resolve the workflow's own promises a few microtasks later than without them, and
// that can reorder the commands of one activation (a research run's update completing before or after the child it
// starts). A history recorded with telemetry off then fails to replay with it on, and the other way round. Here the
// span is started and ended beside the call, and the workflow gets the very promise the SDK made.
import * as otel from '@opentelemetry/api';
import {
  extractContextFromHeaders,
  headersWithContext,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import {
  type ActivityInput,
  ContinueAsNew,
  type Headers,
  type LocalActivityInput,
  type Next,
  type SignalInput,
  type SignalWorkflowInput,
  type StartChildWorkflowExecutionInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
  workflowInfo,
} from '@temporalio/workflow';
import { SdkFlags } from '@temporalio/workflow/lib/flags';
import { getActivator } from '@temporalio/workflow/lib/global-attributes';

/** Whether this task may run without the old interceptors' extra yields (else Temporal's own versions run). */
function avoidsExtraYields(): boolean {
  return getActivator().hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields);
}

/** Ends `span` when `promise` settles, as Temporal's `instrument` does, without adding to the caller's chain. */
function endWith<T>(span: otel.Span, promise: Promise<T>, acceptable?: (error: unknown) => boolean): Promise<T> {
  promise.then(
    () => {
      span.setStatus({ code: otel.SpanStatusCode.OK });
      span.end();
    },
    (error: unknown) => {
      if (acceptable?.(error)) span.setStatus({ code: otel.SpanStatusCode.OK });
      else {
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
        span.recordException(error as Error);
      }
      span.end();
    },
  );
  return promise;
}

/** Runs `call` with a new span named `name` active, the span ending when the promise `call` returns settles. */
function spanned<T>(
  tracer: otel.Tracer,
  name: string,
  call: () => Promise<T>,
  parent: otel.Context = otel.context.active(),
  acceptable?: (error: unknown) => boolean,
  attributes?: otel.Attributes,
): Promise<T> {
  const span = tracer.startSpan(name, { attributes }, parent);
  return endWith(span, otel.context.with(otel.trace.setSpan(parent, span), call), acceptable);
}

class Inbound extends OpenTelemetryInboundInterceptor {
  override execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    if (!avoidsExtraYields()) return super.execute(input, next);
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    const name = `RunWorkflow:${workflowInfo().workflowType}`;
    return spanned(
      this.tracer,
      name,
      () => next(input),
      parent,
      (error) => error instanceof ContinueAsNew,
    );
  }

  override handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) {
    // Temporal's own gate: signals are traced in histories of 1.11.5 and later.
    if (!getActivator().hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesInboundSignals)) return next(input);
    if (!avoidsExtraYields()) return super.handleSignal(input, next);
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    return spanned(this.tracer, `HandleSignal:${input.signalName}`, () => next(input), parent);
  }

  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) {
    // Temporal's own gate: updates are traced in histories recorded with their tracing (1.13.3 and later).
    if (!getActivator().hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    const attributes = { temporalUpdateId: input.updateId };
    return spanned(this.tracer, `HandleUpdate:${input.name}`, () => next(input), parent, undefined, attributes);
  }
}

class Outbound extends OpenTelemetryOutboundInterceptor {
  /** `next` with the context of a new span `name` in the headers, the span ending when what it started settles. */
  private start<I extends { headers: Headers }, T>(name: string, input: I, next: (input: I) => Promise<T>) {
    return spanned(this.tracer, name, () => next({ ...input, headers: headersWithContext(input.headers) }));
  }

  override scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    if (!avoidsExtraYields()) return super.scheduleActivity(input, next);
    return this.start(`StartActivity:${input.activityType}`, input, next);
  }

  override scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    if (!avoidsExtraYields()) return super.scheduleLocalActivity(input, next);
    return this.start(`StartActivity:${input.activityType}`, input, next);
  }

  override startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    if (!avoidsExtraYields()) return super.startChildWorkflowExecution(input, next);
    return this.start(`StartChildWorkflow:${input.workflowType}`, input, next);
  }

  override signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) {
    if (!avoidsExtraYields()) return super.signalWorkflow(input, next);
    return this.start(`SignalWorkflow:${input.signalName}`, input, next);
  }
}

/** Temporal's workflow interceptors, timing-transparent where it matters; first in the chain, so theirs is the trace. */
export function temporalInterceptors(): Required<Pick<WorkflowInterceptors, 'inbound' | 'outbound' | 'internals'>> {
  return { inbound: [new Inbound()], outbound: [new Outbound()], internals: [new OpenTelemetryInternalsInterceptor()] };
}
