// Worker side: the plugin for a worker the user already runs, and the parts it is built from.
export { ScratchpadPlugin, type ScratchpadPluginOptions, combinedWorkflowsPath } from './workers/plugin';
export {
  createWorker,
  type WorkerSetup,
  WORKFLOWS_PATH,
  toolOptions,
  workerSinks,
  workerToolRegistry,
  workflowWorkerOptions,
} from './workers/create-worker';
export {
  defineTool,
  type CodeTool,
  type JsonValue,
  type ToolContext,
  type ToolDefinitionInput,
} from './activities/tools/define-tool';
export type { ToolPolicy, ToolDescriptor } from './core/tools/descriptor';
export { ToolRegistry } from './activities/tools/registry';
export { type ToolInput, type ToolSources, loadToolModule } from './workers/tool-sources';
export { type ActivityDependencies, createActivities } from './activities';
export { createModelResolver } from './activities/model/registry';
export type { ModelProvider } from './activities/model/provider';
export { ScriptedProvider, type ScriptEntry } from './activities/model/scripted';
export type { ToolOptions } from './activities/tools/types';
/** Where archived memory and large observations live; the plugin's `observations` option takes one. */
export type { ObservationStore, StoreOptions } from './activities/observations/entry';
/** The embedded store: one SQLite file, shared by the workers of one host (the default of the plugin and the CLI). */
export { SqliteObservationStore } from './activities/observations/sqlite-store';
/** The shared store for workers on several hosts. */
export { RedisObservationStore, type RedisStoreOptions } from './activities/observations/redis-store';
/** A store in this process's memory, lost when it exits: for tests. */
export { MemoryObservationStore } from './activities/observations/memory-store';
/** The store a `SCRATCHPAD_OBSERVATIONS` value names: `redis://…`, `sqlite:PATH` or a file path. */
export { openObservationStore } from './activities/observations/open-store';
/** The store a plugin option names, or by default the one `SCRATCHPAD_OBSERVATIONS` / the data directory names. */
export { type ObservationStoreChoice, chosenObservationStore } from './workers/observation-store';
export { replayTimeline } from './clients/timeline';
/** A build of a Worker Deployment, as the plugin's `deployment` option takes it. */
export type { WorkerBuild } from './config/deployment';
