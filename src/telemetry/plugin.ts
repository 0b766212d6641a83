// Loaded only with telemetry on (telemetry/index.ts).
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
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

/** This package's part: the GenAI activity spans, the workflow module and the sink behind the metrics. */
class GenAiPlugin extends SimplePlugin {
  private readonly sinks: InjectedSinks<TelemetrySinks>;

  constructor(options: WorkerTelemetryOptions) {
    const metrics = telemetryMetrics();
    super({
      name: 'durable-scratchpad-telemetry',
      workerInterceptors: {
        activity: [(context) => ({ inbound: new GenAiActivityInterceptor(context, { ...options, metrics }) })],
        workflowModules: [require.resolve('./workflow-interceptors')],
      },
    });
    this.sinks = {
      scratchpadTelemetry: {
        cycleEnded: { fn: (_info, cycle) => metrics.cycleEnded(cycle) },
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

/**
 * The worker plugins of telemetry, in order: Temporal's OpenTelemetry plugin (client, workflow and activity spans,
 * context in headers, workflow spans through a sink) and this package's GenAI spans and metrics inside it.
 */
export function telemetryWorkerPlugins(options: WorkerTelemetryOptions): WorkerPlugin[] {
  return [
    new OpenTelemetryPlugin({ resource: options.resource, spanProcessor: options.spanProcessor }),
    new GenAiPlugin(options),
  ];
}
