import type { Message, ModelResponse, SystemPromptId } from '../../core/cycle/model';
import type { OfferedTool } from './offered-tools';

/** A model request after defaults are applied; what providers receive. */
export interface ProviderRequest {
  system: SystemPromptId;
  /** Provider-neutral: each provider maps tool calls and results to its own shape, or flattens them to text. */
  messages: Message[];
  /** The offered tools, resolved by the activity: names with descriptions and schemas. */
  tools: OfferedTool[];
  toolChoice: 'auto' | 'any' | { name: string };
  maxTokens: number;
}

/** One way to reach a model. Providers throw `ApplicationFailure`s typed `ModelError.*`; Temporal retries. */
export interface ModelProvider {
  /** Human-readable spec, e.g. `anthropic:claude-sonnet-5-5`. */
  readonly spec: string;
  complete(request: ProviderRequest, signal?: AbortSignal): Promise<ModelResponse>;
}
