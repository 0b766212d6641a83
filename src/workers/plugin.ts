import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SimplePlugin } from '@temporalio/plugin';
import type { ReplayWorkerOptions, Worker, WorkerOptions } from '@temporalio/worker';
import { type ActivityDependencies, createActivities } from '../activities';
import { writeAside } from '../config/temp-files';
import { createModelResolver, probeDefaultModel, protocolLine } from '../activities/model/registry';
import type { ModelProvider } from '../activities/model/provider';
import type { ToolOptions } from '../activities/tools/types';
import { SHARED_WORKFLOW_MODULES, WORKFLOWS_PATH } from '../config/paths';
import { workerSinks } from './create-worker';
import type { McpConfig } from '../activities/tools/mcp/config';
import { type ToolInput, toolRegistryOf } from './tool-sources';
import type { ObservationStore } from '../activities/observations/entry';
import { type ObservationStoreChoice, chosenObservationStore, whileCheckingStoreReach } from './observation-store';
import { type WorkerBuild, workerBuildFromEnv } from '../config/deployment';
import { pluginDeploymentOptions } from './deployment';
import { WORKER_LIVENESS_OPTIONS } from '../activities/heartbeat';
import { type TelemetryOptions, type WorkerTelemetry, workerTelemetry } from '../telemetry';
import { toolInfoOf } from './tool-info';
import { KeptBundle } from './kept-bundle';

/** What the plugin needs to run agents on a worker the user already has. */
export interface ScratchpadPluginOptions {
  /**
   * Default model spec (`anthropic:<model>`, `openai:<model>@<url>`, `scripted:<file>`) for cycles that name none; a
   * comma-separated list (`a,b`) hands a call that fails for good on one model to the next.
   */
  model?: string;
  /** Providers used as-is for these exact specs (a scripted model, a custom client). */
  providers?: Record<string, ModelProvider>;
  /**
   * More specs a workflow may name besides `model` and the `providers`' specs: exact specs, `anthropic:*`,
   * `openai:*@BASE_URL[#text]`, `scripted:*`. Any other spec a workflow names fails `ModelError.NotAllowed`.
   */
  models?: readonly string[];
  anthropicApiKey?: string;
  anthropicBaseURL?: string;
  /** Bearer token for an OpenAI-compatible server that wants one. */
  openaiApiKey?: string;
  /** An OpenAI-compatible model's context window in tokens, where its server does not say. */
  contextTokens?: number;
  /** Milliseconds one model request may take before it is abandoned and retried (default 300,000). */
  modelTimeoutMs?: number;
  /** Limits of the built-in tools; the sandbox folder must exist. */
  toolLimits?: ToolOptions;
  /**
   * The agents' own tools, made with `defineTool`. Before 0.3 this option held the built-ins' limits; an object
   * here is still read as `toolLimits`.
   */
  tools?: readonly ToolInput[] | ToolOptions;
  /** MCP servers whose tools the agents get: a config file's path, or its content (`{ mcpServers: {...} }`). */
  mcpConfig?: string | McpConfig;
  /** Tool names and globs offered to agents whose settings name none; absent, every tool the worker has. */
  defaultTools?: string[];
  /** Tool names and globs whose calls wait for a person's decision (as `SCRATCHPAD_APPROVE`); agents cannot waive it. */
  approve?: string[];
  /**
   * Where archived memory and large observations live: a store (`new RedisObservationStore(url)`; a
   * `MemoryObservationStore` only for tests) or a spec, `redis://HOST:PORT`, `sqlite:PATH` or a file path. By default
   * the CLI worker's: `SCRATCHPAD_OBSERVATIONS`, else `observations.db` in the data directory (`SCRATCHPAD_HOME`).
   */
  observations?: ObservationStoreChoice;
  /**
   * The Worker Deployment build this worker is (Worker Versioning): cycles and other runs finish on the build that
   * started them, agents move to the build made current. By default `SCRATCHPAD_DEPLOYMENT` and `SCRATCHPAD_BUILD_ID`
   * when set; `false`: unversioned. A worker given `workerDeploymentOptions` of its own keeps them.
   */
  deployment?: WorkerBuild | false;
  /**
   * Traces and metrics (OpenTelemetry, GenAI conventions): by default from the standard OTEL_* variables, off when
   * they ask for none; your own span processor and resource (with your global tracer and meter providers); `false`:
   * off. A worker given a prebuilt `workflowBundle` must bundle `telemetryWorkflowModules()` itself.
   */
  telemetry?: TelemetryOptions | false;
  /**
   * Where a worker that runs this package's workflows alone (no workflows, bundler options, converters, workflow
   * interceptors or plugins of yours) keeps the bundle it built, for later starts to take instead of bundling again: a
   * folder only you can write to (its code runs in the worker); by default the one `scratchpad` commands use, in the
   * temporary directory. `false`: bundle at every start.
   */
  bundleCache?: string | false;
  /** Everything else the activities take: offload threshold, a client for schedules; an `observations` store here wins. */
  activities?: Omit<ActivityDependencies, 'resolveModel' | 'tools' | 'toolRegistry'>;
}

/** The built-ins' limits and the user's tools, from either shape of the options. */
function toolsOf(options: ScratchpadPluginOptions): { limits: ToolOptions; tools: readonly ToolInput[] } {
  const { tools } = options;
  if (tools !== undefined && !Array.isArray(tools)) return { limits: tools as ToolOptions, tools: [] };
  if (!options.toolLimits) {
    throw new Error("ScratchpadPlugin needs toolLimits: the sandbox folder and the built-in tools' limits");
  }
  return { limits: options.toolLimits, tools: (tools ?? []) as readonly ToolInput[] };
}

/**
 * A module exporting the user's workflows and this package's, so both bundle into one worker. `export *` leaves out
 * a name both export: keep the user's workflow names apart from `agent`, `agentCycle` and `scheduledWake`.
 */
export function combinedWorkflowsPath(userWorkflowsPath: string | undefined): string {
  if (userWorkflowsPath === undefined || path.resolve(userWorkflowsPath) === WORKFLOWS_PATH) return WORKFLOWS_PATH;
  const user = path.resolve(userWorkflowsPath);
  // The bundler resolves its own runtime from the entry's folder: give that folder the user's node_modules.
  const workflowPackage = require.resolve('@temporalio/workflow/package.json', { paths: [path.dirname(user)] });
  const nodeModules = path.resolve(path.dirname(workflowPackage), '..', '..');
  const text = `${[user, WORKFLOWS_PATH].map((file) => `export * from ${JSON.stringify(file)};`).join('\n')}\n`;
  const hash = createHash('sha256').update(text).update(nodeModules).digest('hex').slice(0, 16);
  const folder = path.join(os.tmpdir(), `durable-scratchpad-workflows-${hash}`);
  const entry = path.join(folder, 'index.js');
  if (!fs.existsSync(entry)) {
    fs.mkdirSync(folder, { recursive: true });
    // Workers starting together may race here; the content is the same, so the first one wins.
    try {
      fs.symlinkSync(nodeModules, path.join(folder, 'node_modules'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    writeAside(entry, text);
  }
  return entry;
}

/**
 * The worker plugin: registers the agent workflows (bundled with the worker's own), the activities with their
 * configuration and the sinks the workflows call. Add it with `Worker.create({ plugins: [...] })`.
 */
export class ScratchpadPlugin extends SimplePlugin {
  private readonly observations: ObservationStore;
  private readonly build: WorkerBuild | undefined;
  private readonly telemetry: WorkerTelemetry | undefined;
  private readonly bundleCache: string | false | undefined;
  /** The bundle cache's part in the worker last configured, when it runs this package's workflows alone. */
  private kept: KeptBundle | undefined;

  constructor(options: ScratchpadPluginOptions) {
    const resolveModel = createModelResolver({
      defaultSpec: options.model,
      anthropicApiKey: options.anthropicApiKey,
      anthropicBaseURL: options.anthropicBaseURL,
      openaiApiKey: options.openaiApiKey,
      providers: options.providers,
      models: options.models,
      onProtocol: (spec, protocol, why) => console.warn(protocolLine(spec, protocol, why)),
      contextTokens: options.contextTokens,
      timeoutMs: options.modelTimeoutMs,
    });
    void probeDefaultModel(resolveModel, (line) => console.warn(line));
    const { limits, tools } = toolsOf(options);
    const toolRegistry = toolRegistryOf({
      tools,
      mcpConfig: options.mcpConfig,
      defaultTools: options.defaultTools,
      approve: options.approve,
      log: (line) => console.warn(line),
    });
    const observations = options.activities?.observations ?? chosenObservationStore(options.observations);
    const build = options.deployment === false ? undefined : (options.deployment ?? workerBuildFromEnv());
    super({
      name: 'durable-scratchpad',
      activities: createActivities({ ...options.activities, observations, resolveModel, tools: limits, toolRegistry }),
      workflowsPath: combinedWorkflowsPath,
      // MCP server processes end with the worker.
      runContext: async (run: () => Promise<void>) => {
        try {
          await run();
        } finally {
          await toolRegistry.close();
        }
      },
    });
    this.observations = observations;
    this.build = build;
    this.bundleCache = options.bundleCache;
    this.telemetry = workerTelemetry(options.telemetry, {
      defaultModel: options.model,
      toolInfo: toolInfoOf(toolRegistry),
    });
  }

  // Says at start when other workers on the queue cannot read this worker's archives (a local store).
  override runWorker(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
    const log = (line: string) => console.warn(line);
    this.kept?.keep();
    return whileCheckingStoreReach(worker, this.observations, log, () => super.runWorker(worker, next));
  }

  // SimplePlugin has no sinks option; the workflows report to the timeline sink on every iteration.
  override configureWorker(options: WorkerOptions): WorkerOptions {
    this.kept = KeptBundle.of(options, this.telemetry?.workflowModules ?? [], this.bundleCache);
    // The user's own liveness settings win over the heartbeat pace the activities expect.
    const configured = { ...WORKER_LIVENESS_OPTIONS, ...super.configureWorker(options) };
    const versioning = pluginDeploymentOptions(configured.workerDeploymentOptions, this.build);
    const own = {
      ...configured,
      // A prebuilt bundle is the code the worker runs: the path set above would only earn a warning from the SDK.
      ...(configured.workflowBundle !== undefined && { workflowsPath: undefined }),
      sinks: { ...workerSinks(), ...configured.sinks },
      ...shared(configured),
      ...versioning,
    };
    // Telemetry's plugins are SimplePlugins, which configure synchronously.
    const complete = (this.telemetry?.plugins ?? []).reduce<WorkerOptions>(
      (next, plugin) => (plugin.configureWorker?.(next) as WorkerOptions | undefined) ?? next,
      own,
    );
    return this.kept?.apply(complete) ?? complete;
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = super.configureReplayWorker(options);
    const own = { ...configured, sinks: { ...workerSinks(), ...configured.sinks }, ...shared(configured) };
    return (this.telemetry?.plugins ?? []).reduce<ReplayWorkerOptions>(
      (next, plugin) => (plugin.configureReplayWorker?.(next) as ReplayWorkerOptions | undefined) ?? next,
      own,
    );
  }
}

/**
 * Bundler options that share this package's workflow modules too (the user's own preloads stay). None for a worker
 * given a prebuilt bundle: the SDK ignores bundler options then, with a warning; share modules when building it.
 */
function shared(options: Pick<WorkerOptions, 'bundlerOptions' | 'workflowBundle'>): Partial<WorkerOptions> {
  if (options.workflowBundle !== undefined) return {};
  const preload = options.bundlerOptions?.preloadModules ?? [];
  const preloadModules = [...new Set([...preload, ...SHARED_WORKFLOW_MODULES])];
  return { bundlerOptions: { ...options.bundlerOptions, preloadModules } };
}
