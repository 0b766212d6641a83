import { ApplicationFailure, Context } from '@temporalio/activity';
import { type ModelRequest, ModelRequestSchema, type ModelResponse } from '../core/model';
import { type Observation, type ToolCallInput } from '../core/observation';
import type { ModelProvider } from './model/provider';
import { runToolCall } from './tools';
import type { ToolOptions } from './tools/types';

export interface ActivityDependencies {
  /** Resolves a model spec (or the default when undefined) to a provider. */
  resolveModel: (spec?: string) => ModelProvider;
  tools: ToolOptions;
}

/** Activities close over their dependencies so tests and the worker inject real or scripted parts. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    /** One model call. Retries belong to Temporal: providers never retry on their own. */
    async callModel(request: ModelRequest): Promise<ModelResponse> {
      const parsed = ModelRequestSchema.safeParse(request);
      if (!parsed.success) {
        throw ApplicationFailure.nonRetryable(`invalid model request: ${parsed.error.message}`, 'ModelError.BadRequest');
      }
      const { model, ...rest } = parsed.data;
      const provider = dependencies.resolveModel(model);
      return provider.complete(rest, activitySignal());
    },

    /** One tool call; tool errors come back as `ok: false` observations, not thrown failures. */
    async runTool(call: ToolCallInput): Promise<Observation> {
      return runToolCall(call, dependencies.tools);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
