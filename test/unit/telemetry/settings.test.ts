import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { telemetrySettings } from '../../../src/telemetry/settings';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('telemetry settings from the standard OTEL_* variables', () => {
  it('is off with no endpoint and no exporter named, and with OTEL_SDK_DISABLED=true whatever else is set', () => {
    expect(telemetrySettings({})).toBeUndefined();
    expect(
      telemetrySettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }),
    ).toBeUndefined();
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
  });

  it('reads the endpoint, per-signal endpoints, exporters, protocols, the interval and the content opt-in', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      traces: 'otlp',
      metrics: 'otlp',
      tracesProtocol: 'http/protobuf',
      metricsProtocol: 'http/protobuf',
      metricIntervalMs: 60_000,
      captureContent: false,
      warnings: [],
    });
    expect(
      telemetrySettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      }),
    ).toMatchObject({
      traces: 'otlp',
      metrics: 'none',
      tracesProtocol: 'http/json',
      metricIntervalMs: 5000,
      captureContent: true,
    });
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({
      traces: 'console',
      metrics: 'none',
    });
  });

  it('says what it cannot honour: gRPC, an unknown exporter', () => {
    const settings = telemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(settings?.tracesProtocol).toBe('http/protobuf');
    expect(settings?.warnings[0]).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'zipkin' })?.warnings[0]).toContain('OTEL_TRACES_EXPORTER=zipkin');
  });

  it('off, loads nothing of OpenTelemetry: not the SDK, not the exporters, not the interceptors', () => {
    const probe = `
      const { startTelemetry, telemetryClientInterceptors, workerTelemetry } = require('./dist/src/telemetry');
      require('./dist/src/client');
      require('./dist/src/worker');
      const off = [startTelemetry(), workerTelemetry(undefined), telemetryClientInterceptors().length];
      // The API alone is no SDK: the Anthropic SDK loads it for its own reasons.
      const loaded = Object.keys(require.cache).filter(
        (file) => /@opentelemetry|interceptors-opentelemetry/.test(file) && !file.includes('/@opentelemetry/api/'),
      );
      console.log(JSON.stringify({ off, loaded }));
    `;
    for (const env of [{}, { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }]) {
      const run = spawnSync(process.execPath, ['-e', probe], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', ...env },
      });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ off: [null, null, 0], loaded: [] });
    }
  });
});
