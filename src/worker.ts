// The package's public worker side: the plugin for a worker the user already runs, `createWorker` for one configured
// from the environment as `scratchpad worker` does, and `defineTool` for the agents' own tools. Its dependencies are
// optional peer dependencies of the package: a missing one is named here, with the line that installs it. The
// surface is recorded in api/durable-scratchpad-worker.api.md (`npm run api` updates it).
import { requireWorkerDependencies } from './config/worker-dependencies';

requireWorkerDependencies();

export { ScratchpadPlugin, type ScratchpadPluginOptions } from './workers/plugin';
export { createWorker, type WorkerSetup } from './workers/create-worker';
export {
  defineTool,
  type CodeTool,
  type JsonValue,
  type ToolContext,
  type ToolDefinitionInput,
} from './activities/tools/define-tool';
export type { ToolInput } from './workers/tool-sources';
export type { ToolOptions } from './activities/tools/types';
export type { ToolPolicy, ToolPolicyInput } from './core/tools/descriptor';
export type { McpConfig } from './activities/tools/mcp/config';
export type { ModelProvider } from './activities/model/provider';
/** Where archived memory and large observations live: a store, or a spec the plugin's `observations` option takes. */
export type { ObservationStore, StoreOptions } from './activities/observations/entry';
export type { ObservationStoreChoice } from './workers/observation-store';
/** A build of a Worker Deployment, as the plugin's `deployment` option takes it. */
export type { WorkerBuild } from './config/deployment';
export type { Config } from './config';
/** Traces and metrics with your own OpenTelemetry setup (the plugin's `telemetry` option), and a bundle's modules. */
export { type TelemetryOptions, telemetryWorkflowModules } from './telemetry';
