import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { stopProcess } from './process-control';
import { packageRoot } from '../config/paths';

/** Where the script is: the repository's scripts/, from src/ or dist/src/ alike. */
function script(): string {
  return path.join(packageRoot(), 'scripts', 'ensure-jaeger.sh');
}

/** A span as Jaeger's query API returns it, with its tags as one record. */
export interface StoredSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  /** The resource's attributes (Jaeger's process tags). */
  resource: Record<string, unknown>;
  tags: Record<string, unknown>;
  events: { name: string; fields: Record<string, unknown> }[];
}

/**
 * Jaeger v2 on free loopback ports, for the telemetry tests and bench: OTLP/HTTP in, traces in memory read back by
 * its query API, metrics (which Jaeger does not store) through the collector's prometheus exporter.
 */
export interface Jaeger {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for a process that sends here. */
  otlpEndpoint: string;
  /** Every span of `service` stored so far. */
  spans(service: string): Promise<StoredSpan[]>;
  /** The metrics received so far, in Prometheus' text format (the collector's prometheus exporter). */
  metrics(): Promise<string>;
  log(): string;
  stop(): Promise<void>;
}

/** The cached Jaeger binary (scripts/ensure-jaeger.sh builds it with Go on first use, about 5 minutes). */
export async function ensureJaeger(): Promise<string> {
  const { stdout } = await promisify(execFile)(script(), [], { timeout: 30 * 60_000 });
  return stdout.trim();
}

function config(ports: { otlp: number; query: number; queryGrpc: number; metrics: number }): string {
  // The collector's own telemetry is off: it would take fixed ports, and files start Jaeger side by side.
  return `
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
    metrics:
      receivers: [otlp]
      exporters: [prometheus]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
  prometheus:
    endpoint: 127.0.0.1:${ports.metrics}
    add_metric_suffixes: false
`;
}

interface QuerySpan {
  traceID: string;
  spanID: string;
  operationName: string;
  processID: string;
  references?: { refType: string; spanID: string }[];
  tags?: { key: string; value: unknown }[];
  logs?: { fields?: { key: string; value: unknown }[] }[];
}

interface QueryTrace {
  spans: QuerySpan[];
  processes: Record<string, { serviceName: string; tags?: { key: string; value: unknown }[] }>;
}

function record(entries: { key: string; value: unknown }[] = []): Record<string, unknown> {
  return Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
}

const START_TIMEOUT_MS = 30_000;

/** Starts Jaeger and waits until both its OTLP receiver and its query API answer. */
export async function startJaeger(): Promise<Jaeger> {
  const binary = await ensureJaeger();
  const ports = {
    otlp: await freePort(),
    query: await freePort(),
    queryGrpc: await freePort(),
    metrics: await freePort(),
  };
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'jaeger-test-'));
  const file = path.join(folder, 'config.yaml');
  fs.writeFileSync(file, config(ports));
  const child = spawn(binary, ['--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-64 * 1024));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const query = `http://127.0.0.1:${ports.query}`;
  const otlpEndpoint = `http://127.0.0.1:${ports.otlp}`;
  const jaeger: Jaeger = {
    otlpEndpoint,
    async spans(service) {
      const response = await fetch(`${query}/api/traces?service=${encodeURIComponent(service)}&limit=1000&lookback=1h`);
      if (response.status === 404) return [];
      const body = (await response.json()) as { data: QueryTrace[] | null };
      return (body.data ?? []).flatMap((trace) =>
        trace.spans.map((span) => ({
          traceId: span.traceID,
          spanId: span.spanID,
          parentSpanId: span.references?.find((reference) => reference.refType === 'CHILD_OF')?.spanID,
          name: span.operationName,
          service: trace.processes[span.processID]?.serviceName ?? '',
          resource: record(trace.processes[span.processID]?.tags),
          tags: record(span.tags),
          events: (span.logs ?? []).map((entry) => {
            const fields = record(entry.fields);
            return { name: String(fields.event ?? ''), fields };
          }),
        })),
      );
    },
    async metrics() {
      return (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
    },
    log: () => log,
    async stop() {
      if (child.pid !== undefined) await stopProcess(child.pid, 5000);
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
  const answers = async () => {
    const [services, receiver] = await Promise.all([
      fetch(`${query}/api/services`),
      fetch(`${otlpEndpoint}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    ]);
    return services.ok && receiver.ok;
  };
  for (const deadline = Date.now() + START_TIMEOUT_MS; ;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await jaeger.stop();
      throw new Error(`jaeger did not start: ${log.slice(-1000)}`);
    }
    if (await answers().catch(() => false)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return jaeger;
}
