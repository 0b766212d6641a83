// Telemetry's light entry: reads the standard OTEL_* variables and loads the OpenTelemetry SDK (and Temporal's
// interceptors) only when they ask for telemetry. Off, nothing of OpenTelemetry is required.
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerPlugin } from '@temporalio/worker';
import type * as PluginModule from './plugin';
import type * as SdkModule from './sdk';
import { type TelemetrySettings, telemetrySettings } from './settings';

export { type TelemetrySettings, telemetrySettings } from './settings';

/** Telemetry as this process runs it. */
export interface Telemetry {
  settings: TelemetrySettings;
  resource: Resource;
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

/** A user's own OpenTelemetry setup, for a worker of theirs: their processor and resource, their global providers. */
export interface TelemetryOptions {
  /** Receives the workflows' spans; register the same one with your tracer provider. */
  spanProcessor: SpanProcessor;
  /** What the workflows' spans say they come from (service name and the rest), as your tracer provider's. */
  resource: Resource;
  /** Prompts, replies, tool arguments and results on spans (default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  captureContent?: boolean;
}

let started: Telemetry | undefined;
let checked = false;

const PACKAGES =
  '@opentelemetry/api, sdk-trace-node, sdk-metrics, the OTLP exporters and @temporalio/interceptors-opentelemetry';

/* eslint-disable @typescript-eslint/no-require-imports -- the SDK loads only when telemetry is on */
function load<T>(module: string): T {
  try {
    return require(module) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `telemetry is configured (OTEL_* variables) but its packages are not installed: install ${PACKAGES} ` +
        '(npm install durable-scratchpad lists them as optional peer dependencies), or unset OTEL_EXPORTER_OTLP_ENDPOINT',
      { cause: error },
    );
  }
}

/**
 * Starts the OpenTelemetry SDK once per process when the environment asks for telemetry, and returns it; undefined
 * (and nothing loaded) when it does not. Settings it cannot honour are said once on `log`.
 */
export function startTelemetry(
  env: Record<string, string | undefined> = process.env,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Telemetry | undefined {
  if (checked) return started;
  checked = true;
  const settings = telemetrySettings(env);
  if (!settings) return undefined;
  for (const warning of settings.warnings) log(`telemetry: ${warning}`);
  const sdk = load<typeof SdkModule>('./sdk').startSdk(settings, env);
  started = { settings, ...sdk };
  return started;
}

/** Flushes and stops this process's telemetry, if it started; a command calls it before it exits. */
export async function shutdownTelemetry(): Promise<void> {
  const current = started;
  started = undefined;
  await current?.shutdown();
}

/**
 * The workflow interceptor modules a bundle needs for telemetry (Temporal's own interceptors come with them), for a
 * worker given a prebuilt `workflowBundle`: pass them to `bundleWorkflowCode({ workflowInterceptorModules })`.
 */
export function telemetryWorkflowModules(): string[] {
  return [require.resolve('./workflow-interceptors')];
}

/**
 * Interceptors that carry a client's trace into the workflows it starts, signals, updates and queries: when the
 * OTEL_* variables turn telemetry on, or always with `own` (a tracer provider the application registered itself).
 */
export function telemetryClientInterceptors(own = false): WorkflowClientInterceptor[] {
  if (!startTelemetry() && !own) return [];
  const { OpenTelemetryWorkflowClientInterceptor } = load<typeof import('@temporalio/interceptors-opentelemetry')>(
    '@temporalio/interceptors-opentelemetry',
  );
  return [new OpenTelemetryWorkflowClientInterceptor()];
}

/** What a worker adds for telemetry: its plugins, and the workflow modules a prebuilt bundle must include. */
export interface WorkerTelemetry {
  plugins: WorkerPlugin[];
  workflowModules: string[];
}

/**
 * A worker's telemetry: the user's own setup, or this process's from the environment; undefined when neither asks
 * for it. `defaultModel` and `toolInfo` name what spans cannot read from an activity's input.
 */
export function workerTelemetry(
  own: TelemetryOptions | false | undefined,
  details: Pick<PluginModule.WorkerTelemetryOptions, 'defaultModel' | 'toolInfo'> = {},
): WorkerTelemetry | undefined {
  if (own === false) return undefined;
  const base = own ?? startTelemetry();
  if (!base) return undefined;
  const captureContent = own?.captureContent ?? telemetrySettings()?.captureContent ?? false;
  const plugin = load<typeof PluginModule>('./plugin');
  // A user's processor gets the same filtering of content as this package's own.
  const { contentFilter } = load<typeof import('./content')>('./content');
  const spanProcessor = own ? contentFilter(own.spanProcessor, captureContent) : base.spanProcessor;
  return {
    plugins: plugin.telemetryWorkerPlugins({ ...details, resource: base.resource, spanProcessor, captureContent }),
    workflowModules: telemetryWorkflowModules(),
  };
}

/** Runs `work` inside a span named `name` when telemetry is on (a command's root span); as is otherwise. */
export async function withSpan<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!started) return work();
  const otel = load<typeof import('@opentelemetry/api')>('@opentelemetry/api');
  return otel.trace.getTracer('durable-scratchpad').startActiveSpan(name, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : '' });
      throw error;
    } finally {
      span.end();
    }
  });
}
/* eslint-enable @typescript-eslint/no-require-imports */
