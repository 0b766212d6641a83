// Loaded only with telemetry on (telemetry/index.ts).
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryActivityInboundInterceptor,
  type OpenTelemetrySinks,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import { SimplePlugin } from '@temporalio/plugin';
import type { InjectedSinks, ReplayWorkerOptions, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { type ActivitySpanOptions, GenAiActivityInterceptor } from './activity-spans';
import { telemetryMetrics } from './metrics';
import type { TelemetrySinks } from './sinks';

/** What a worker's telemetry is made of. */
export interface WorkerTelemetryOptions extends Omit<ActivitySpanOptions, 'metrics'> {
  resource: Resource;
  /** Where the workflows' spans go (Temporal's sink hands them to it); the activities' go to the global provider. */
  spanProcessor: SpanProcessor;
}

/**
 * Temporal's OpenTelemetry plugin, as its parts: the client and activity interceptors and the workflow spans' exporter
 * sink are Temporal's; the workflow module is this package's (telemetry/workflow-interceptors.ts), which runs
 * Temporal's workflow interceptors without their extra microtasks (telemetry/temporal-spans.ts), then the GenAI
 * spans inside them. The GenAI activity spans and the metrics' sink are this package's too.
 */
class TelemetryPlugin extends SimplePlugin {
  private readonly sinks: InjectedSinks<TelemetrySinks & OpenTelemetrySinks>;

  constructor(options: WorkerTelemetryOptions) {
    const metrics = telemetryMetrics();
    super({
      name: 'durable-scratchpad-telemetry',
      clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
      workerInterceptors: {
        client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
        activity: [
          (context) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(context),
            outbound: new OpenTelemetryActivityOutboundInterceptor(context),
          }),
          (context) => ({ inbound: new GenAiActivityInterceptor(context, { ...options, metrics }) }),
        ],
        workflowModules: [require.resolve('./workflow-interceptors')],
      },
    });
    this.sinks = {
      exporter: makeWorkflowExporter(options.spanProcessor, options.resource),
      scratchpadTelemetry: {
        cycleEnded: { fn: (_info, cycle) => metrics.cycleEnded(cycle) },
        agentMemory: { fn: (_info, memory) => metrics.agentMemory(memory) },
        approvalWaiting: { fn: (_info, change) => metrics.approvalWaiting(change) },
        directiveDropped: { fn: (info) => metrics.directiveDropped(info.workflowType) },
      },
    };
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    return super.configureWorker({ ...options, sinks: { ...options.sinks, ...this.sinks } });
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return super.configureReplayWorker({ ...options, sinks: { ...options.sinks, ...this.sinks } });
  }
}

/** The worker plugins of telemetry: client, workflow and activity spans, context in headers, GenAI spans, metrics. */
export function telemetryWorkerPlugins(options: WorkerTelemetryOptions): WorkerPlugin[] {
  return [new TelemetryPlugin(options)];
}
