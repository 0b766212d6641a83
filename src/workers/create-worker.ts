import { Client } from '@temporalio/client';
import {
  type InjectedSinks,
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkerPlugin,
} from '@temporalio/worker';
import type { ToolRegistry } from '../activities/tools/registry';
import { type ToolSources, toolRegistryFor } from './tool-sources';
import { encryptionDataConverter } from '../common/encryption-codec';
import type { TimelineSinks } from '../common/timeline-sink';
import { createActivities } from '../activities';
import { createModelResolver, probeDefaultModel, protocolLine } from '../activities/model/registry';
import type { ModelProvider } from '../activities/model/provider';
import type { ToolOptions } from '../activities/tools/types';
import { type Config, loadConfig } from '../config';
import type { ObservationStore } from '../activities/observations/entry';
import { checkingStoreReach, chosenObservationStore } from './observation-store';
import { deploymentWorkerOptions } from './deployment';
import { workerBuild } from '../config/deployment';

/** Where the workflow code lives, for bundling and for replay. */
import { WORKFLOWS_PATH, workflowBundleOptions, workflowWorkerOptions } from '../config/paths';
import { WORKER_LIVENESS_OPTIONS } from '../activities/heartbeat';
import { workflowCode } from './bundle-cache';
import { workerTelemetry } from '../telemetry';
import { toolInfoOf } from './tool-info';

export { WORKFLOWS_PATH, workflowBundleOptions, workflowWorkerOptions };

/** Sinks the workflows call; the timeline sink only matters when a history is replayed (see timeline.ts). */
export function workerSinks(): InjectedSinks<TimelineSinks> {
  return { timeline: { iteration: { fn: () => undefined } } };
}

/** Tool limits from configuration. */
export function toolOptions(config: Config): ToolOptions {
  return {
    sandboxRoot: config.sandbox,
    shellAllow: config.SCRATCHPAD_SHELL_ALLOW,
    shellTimeoutMs: config.SCRATCHPAD_SHELL_TIMEOUT_MS,
    shellUnconfined: config.SCRATCHPAD_SHELL_UNCONFINED,
    fetchAllowHosts: config.SCRATCHPAD_FETCH_ALLOW,
    fetchAllowAddresses: config.SCRATCHPAD_FETCH_ALLOW_PRIVATE,
    fetchAllowPorts: config.SCRATCHPAD_FETCH_PORTS,
    fetchMaxBytes: config.SCRATCHPAD_FETCH_MAX_BYTES,
    fsWriteMaxBytes: config.SCRATCHPAD_FS_WRITE_MAX_BYTES,
    searchUrl: config.SCRATCHPAD_SEARCH_URL,
  };
}

/** What {@link createWorker} takes; only `config` (by default the environment's) names what it must have. */
export interface WorkerSetup {
  /** Configuration as `scratchpad worker` reads it; by default `loadConfig()` of this process's environment. */
  config?: Config;
  /** The default model spec or list (validated by `resolveModelSpec`); without one, workflows name theirs. */
  modelSpec?: string;
  connection?: NativeConnection;
  /** Providers registered under a spec instead of being built from it (tests, the demo). */
  providers?: Record<string, ModelProvider>;
  /** More specs workflows may name, beside `modelSpec`, the providers' specs and `SCRATCHPAD_MODELS`. */
  models?: readonly string[];
  workerOptions?: Partial<WorkerOptions>;
  /** Observation store instead of the one `SCRATCHPAD_OBSERVATIONS` names. */
  observations?: ObservationStore;
  /** The user's tools: given here, or else from `SCRATCHPAD_TOOLS` and `SCRATCHPAD_MCP_CONFIG`. */
  tools?: ToolSources;
  /** A registry built already (the command line lists it at start); takes the place of `tools`. */
  toolRegistry?: ToolRegistry;
  /** Where the worker's own lines go (how its model is asked for calls); stderr by default. */
  log?: (line: string) => void;
}

/** The worker's tools from configuration, each source given in `setup` taking the place of its variable. */
export async function workerToolRegistry(config: Config, sources: ToolSources = {}): Promise<ToolRegistry> {
  return toolRegistryFor({
    toolsModule: config.SCRATCHPAD_TOOLS,
    mcpConfig: config.SCRATCHPAD_MCP_CONFIG,
    approve: config.SCRATCHPAD_APPROVE,
    ...sources,
  });
}

/** Closes what the worker owns once it has shut down: its MCP servers, so none outlives it, and its own connection. */
export function closingOwned(registry: ToolRegistry, connection?: NativeConnection): WorkerPlugin {
  return {
    name: 'durable-scratchpad-owned',
    async runWorker(worker, next) {
      try {
        await next(worker);
      } finally {
        await registry.close();
        // A connection the worker opened itself is its own to close: left open, it outlives the worker in a program
        // that goes on (a command that ran a worker for one turn), and with forwarded logs keeps the process alive.
        await connection?.close();
      }
    },
  };
}

/** A worker running the project's workflows and activities on the configured task queue. */
export async function createWorker(setup: WorkerSetup = {}): Promise<Worker> {
  const config = setup.config ?? loadConfig();
  const log = setup.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const connection = setup.connection ?? (await NativeConnection.connect(config.temporal));
  const ownConnection = setup.connection ? undefined : connection;
  const resolveModel = createModelResolver({
    defaultSpec: setup.modelSpec,
    anthropicApiKey: config.ANTHROPIC_API_KEY,
    anthropicBaseURL: config.ANTHROPIC_BASE_URL,
    openaiApiKey: config.OPENAI_API_KEY,
    providers: setup.providers,
    models: [...config.SCRATCHPAD_MODELS, ...(setup.models ?? [])],
    onProtocol: (spec, protocol, why) => log(protocolLine(spec, protocol, why)),
    contextTokens: config.SCRATCHPAD_CONTEXT_TOKENS,
    ...(config.SCRATCHPAD_MODEL_TIMEOUT && { timeoutMs: config.SCRATCHPAD_MODEL_TIMEOUT * 1000 }),
  });
  void probeDefaultModel(resolveModel, log);
  const dataConverter = encryptionDataConverter(config.encryptionKeys);
  const toolRegistry = setup.toolRegistry ?? (await workerToolRegistry(config, setup.tools));
  const observations = chosenObservationStore(setup.observations ?? config.observations);
  // Off unless the OTEL_* variables ask for it; then the SDK loads here, and the bundle gets the interceptors.
  const telemetry = workerTelemetry(undefined, { defaultModel: setup.modelSpec, toolInfo: toolInfoOf(toolRegistry) });
  return Worker.create({
    connection,
    dataConverter,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.SCRATCHPAD_TASK_QUEUE,
    ...(await workflowCode(telemetry?.workflowModules ?? [])),
    ...WORKER_LIVENESS_OPTIONS,
    activities: createActivities({
      resolveModel,
      tools: toolOptions(config),
      toolRegistry,
      observations,
      offloadBytes: config.SCRATCHPAD_OFFLOAD_BYTES,
      // Schedules wake agents through this worker's own connection (NativeConnection serves a Client too).
      client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter }),
    }),
    sinks: workerSinks(),
    ...deploymentWorkerOptions(workerBuild(config)),
    ...setup.workerOptions,
    plugins: [
      ...(telemetry?.plugins ?? []),
      ...(setup.workerOptions?.plugins ?? []),
      closingOwned(toolRegistry, ownConnection),
      checkingStoreReach(observations, log),
    ],
  });
}
