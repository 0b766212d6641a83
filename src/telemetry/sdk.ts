// Loaded only once telemetry is configured (telemetry/index.ts): everything of the OpenTelemetry SDK starts here.
import { metrics } from '@opentelemetry/api';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { OtlpProtocol, TelemetrySettings } from './settings';
import { contentFilter } from './content';

/** The SDK this process started: where its spans go, and how to flush them at exit. */
export interface StartedSdk {
  resource: Resource;
  /** Every span goes through it, the workflows' included (Temporal's sink hands them over). */
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

const DEFAULT_SERVICE_NAME = 'durable-scratchpad';

/** OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, with this package's name where neither names the service. */
function resourceOf(env: Record<string, string | undefined>): Resource {
  const detected = Resource.default().merge(envDetectorSync.detect());
  const named = Boolean(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return named ? detected : detected.merge(new Resource({ 'service.name': DEFAULT_SERVICE_NAME }));
}

/* eslint-disable @typescript-eslint/no-require-imports -- each exporter loads only for the protocol in use */
function spanExporter(kind: TelemetrySettings['traces'], protocol: OtlpProtocol): SpanExporter {
  if (kind === 'console') return new ConsoleSpanExporter();
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}

function metricExporter(kind: TelemetrySettings['metrics'], protocol: OtlpProtocol): PushMetricExporter {
  if (kind === 'console') return new ConsoleMetricExporter();
  if (protocol === 'http/json') {
    const { OTLPMetricExporter } =
      require('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
    return new OTLPMetricExporter();
  }
  const { OTLPMetricExporter } =
    require('@opentelemetry/exporter-metrics-otlp-proto') as typeof import('@opentelemetry/exporter-metrics-otlp-proto');
  return new OTLPMetricExporter();
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** A span processor that drops what it is given: traces off, metrics on. */
const NO_SPANS: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/**
 * Starts the tracer and meter providers the settings ask for and registers them as the process's global ones (with
 * W3C trace context propagation and an AsyncLocalStorage context manager), so Temporal's interceptors and this
 * package's spans use them.
 */
export function startSdk(settings: TelemetrySettings, env: Record<string, string | undefined>): StartedSdk {
  const resource = resourceOf(env);
  let spanProcessor = NO_SPANS;
  let tracerProvider: NodeTracerProvider | undefined;
  if (settings.traces !== 'none') {
    spanProcessor = contentFilter(
      new BatchSpanProcessor(spanExporter(settings.traces, settings.tracesProtocol)),
      settings.captureContent,
    );
    tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
    tracerProvider.register();
  }
  let meterProvider: MeterProvider | undefined;
  if (settings.metrics !== 'none') {
    const reader = new PeriodicExportingMetricReader({
      exporter: metricExporter(settings.metrics, settings.metricsProtocol),
      exportIntervalMillis: settings.metricIntervalMs,
      exportTimeoutMillis: Math.min(30_000, settings.metricIntervalMs),
    });
    meterProvider = new MeterProvider({ resource, readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    resource,
    spanProcessor,
    async shutdown() {
      await Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
    },
  };
}
