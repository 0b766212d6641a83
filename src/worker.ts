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
export type { ObservationStore } from './activities/observations/entry';
export { MemoryObservationStore } from './activities/observations/memory-store';
export { replayTimeline } from './clients/timeline';
