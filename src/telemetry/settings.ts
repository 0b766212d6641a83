/**
 * Whether and how telemetry runs, from OpenTelemetry's standard variables. Read before anything of the SDK loads:
 * with none of them set (or `OTEL_SDK_DISABLED=true`) telemetry is off and no OpenTelemetry package is required.
 */
export interface TelemetrySettings {
  /** Where spans go: OTLP over HTTP, or stdout (`OTEL_TRACES_EXPORTER=console`); `none`: no spans. */
  traces: 'otlp' | 'console' | 'none';
  metrics: 'otlp' | 'console' | 'none';
  /** OTLP's encoding for each signal (`OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]PROTOCOL`). */
  tracesProtocol: OtlpProtocol;
  metricsProtocol: OtlpProtocol;
  /** Milliseconds between metric exports (`OTEL_METRIC_EXPORT_INTERVAL`, 60,000 by default). */
  metricIntervalMs: number;
  /** Prompts, replies, tool arguments and results, and memory text on spans: off unless opted in. */
  captureContent: boolean;
  /** Lines worth saying once: a setting read one way when its value asked for another. */
  warnings: string[];
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

type Environment = Record<string, string | undefined>;

const EXPORTERS = ['otlp', 'console', 'none'] as const;

function exporterOf(
  env: Environment,
  name: string,
  endpointSet: boolean,
  warnings: string[],
): TelemetrySettings['traces'] {
  const value = env[name]?.split(',')[0]?.trim().toLowerCase();
  if (!value) return endpointSet ? 'otlp' : 'none';
  if ((EXPORTERS as readonly string[]).includes(value)) return value as TelemetrySettings['traces'];
  warnings.push(`${name}=${value} is not supported (otlp, console or none): using otlp`);
  return 'otlp';
}

function protocolOf(env: Environment, signal: 'TRACES' | 'METRICS', warnings: string[]): OtlpProtocol {
  const name = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : undefined;
  const value = (name ? env[name] : env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (!value) return 'http/protobuf';
  if (value === 'http/protobuf' || value === 'http/json') return value;
  warnings.push(
    `${name ?? 'OTEL_EXPORTER_OTLP_PROTOCOL'}=${value} is not supported (http/protobuf or http/json): using http/protobuf`,
  );
  return 'http/protobuf';
}

/** The settings the environment asks for; undefined when it asks for no telemetry at all. */
export function telemetrySettings(env: Environment = process.env): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const warnings: string[] = [];
  const anyEndpoint = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traces = exporterOf(
    env,
    'OTEL_TRACES_EXPORTER',
    anyEndpoint || !!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    warnings,
  );
  const metrics = exporterOf(
    env,
    'OTEL_METRICS_EXPORTER',
    anyEndpoint || !!env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
    warnings,
  );
  if (traces === 'none' && metrics === 'none') return undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    traces,
    metrics,
    tracesProtocol: protocolOf(env, 'TRACES', warnings),
    metricsProtocol: protocolOf(env, 'METRICS', warnings),
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
    warnings,
  };
}
