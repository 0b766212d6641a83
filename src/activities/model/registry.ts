import { ApplicationFailure } from '@temporalio/common';
import { MODEL_HELP, type ModelSpec, parseModelSpec } from '../../config';
import { AnthropicProvider } from './anthropic';
import { OpenAICompatibleProvider } from './openai';
import type { ModelProvider } from './provider';
import { ScriptedProvider } from './scripted';
import { ModelError } from '../../common/failure-types';
import { errorMessage } from '../../common/error-message';

/** What the worker knows about reaching models. */
export interface ModelResolverOptions {
  /** Used when a request names no model. */
  defaultSpec?: string;
  anthropicApiKey?: string;
  anthropicBaseURL?: string;
  /** Sent as a bearer token to OpenAI-compatible servers that want one (vLLM with `--api-key`). */
  openaiApiKey?: string;
  /** Providers used as-is for these exact specs instead of being built (tests, the demo). */
  providers?: Record<string, ModelProvider>;
}

/** Resolves a model spec, or the default when undefined, to a provider; one provider per spec per process. */
export interface ModelResolver {
  (spec?: string): ModelProvider;
  /** Serves `provider` for this exact spec from now on. */
  register(spec: string, provider: ModelProvider): void;
}

function notConfigured(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, ModelError.NotConfigured);
}

function buildProvider(spec: string, parsed: ModelSpec, options: ModelResolverOptions): ModelProvider {
  switch (parsed.provider) {
    case 'anthropic':
      if (!options.anthropicApiKey) throw notConfigured(`model ${spec} needs ANTHROPIC_API_KEY.\n${MODEL_HELP}`);
      return new AnthropicProvider({
        model: parsed.model,
        apiKey: options.anthropicApiKey,
        baseURL: options.anthropicBaseURL,
      });
    case 'openai':
      return new OpenAICompatibleProvider({
        model: parsed.model,
        baseURL: parsed.baseURL,
        apiKey: options.openaiApiKey,
        protocol: parsed.protocol,
      });
    case 'scripted':
      return ScriptedProvider.fromFile(parsed.path);
  }
}

/**
 * Builds the worker's `resolveModel`. Providers are cached per spec string, so a scripted file's
 * cursor is shared by every activity call in this worker process.
 */
export function createModelResolver(options: ModelResolverOptions): ModelResolver {
  const providers = new Map<string, ModelProvider>(Object.entries(options.providers ?? {}));
  const resolve = (requested?: string): ModelProvider => {
    const spec = requested ?? options.defaultSpec;
    if (!spec) throw notConfigured(MODEL_HELP);
    const cached = providers.get(spec);
    if (cached) return cached;
    let provider: ModelProvider;
    try {
      provider = buildProvider(spec, parseModelSpec(spec), options);
    } catch (error) {
      if (error instanceof ApplicationFailure) throw error;
      throw notConfigured(`cannot use model ${spec}: ${errorMessage(error)}`);
    }
    providers.set(spec, provider);
    return provider;
  };
  return Object.assign(resolve, {
    register(spec: string, provider: ModelProvider): void {
      providers.set(spec, provider);
    },
  });
}
