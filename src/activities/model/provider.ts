import {
  type CacheTtl,
  type Message,
  type ModelResponse,
  type SystemPromptId,
  contentText,
} from '../../core/cycle/model';
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
  /** How long a provider that caches on request keeps the prompt's marked prefixes; absent, its default. */
  cacheTtl?: CacheTtl;
}

/** Hears a reply's text in pieces, in order. */
export type TextListener = (text: string) => void;

/** One way to reach a model. Providers throw `ApplicationFailure`s typed `ModelError.*`; Temporal retries. */
export interface ModelProvider {
  /** Human-readable spec, e.g. `anthropic:claude-sonnet-5-5`. */
  readonly spec: string;
  /** Whether it takes user messages in blocks with cache marks; a provider without it gets each as one text. */
  readonly readsCacheMarks?: boolean;
  /**
   * `onText` hears the reply's text as it comes (design.md, Streaming), as a user would read it: never the JSON of a
   * call, whatever the protocol carries it in. The resolved response is still the whole reply.
   */
  complete(request: ProviderRequest, signal?: AbortSignal, onText?: TextListener): Promise<ModelResponse>;
  /** How it asks the model for calls, once known (`tools`, `json`, `text`); absent for providers with one way. */
  readonly protocol?: string;
  /** Finds out how to ask for calls (an OpenAI-compatible spec without `#...` probes its server). */
  resolveProtocol?(signal?: AbortSignal): Promise<string>;
}

/** `request` as `provider` takes it: blocks joined into one text unless it reads cache marks. */
export function requestFor(provider: ModelProvider, request: ProviderRequest): ProviderRequest {
  if (provider.readsCacheMarks) return request;
  const messages = request.messages.map((message) =>
    message.role === 'user' && typeof message.content !== 'string'
      ? { ...message, content: contentText(message.content) }
      : message,
  );
  return { ...request, messages };
}
