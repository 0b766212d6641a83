import { ApplicationFailure } from '@temporalio/common';
import { type ModelSpec, WORKER_MODEL_HELP, isModelAllowed, modelAllowProblem, parseModelSpec } from '../../config';
import { AnthropicProvider } from './anthropic';
import { OpenAICompatibleProvider } from './openai';
import type { ModelProvider } from './provider';
import { ScriptedProvider } from './scripted';
import { ModelError } from '../../common/failure-types';
import { errorMessage } from '../../common/error-message';
import { excerpt, quotedSpec } from './excerpt';
import { modelListOf, modelListProblem } from '../../core/cycle/model-list';

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
  /**
   * Further specs a request may name: exact specs, `anthropic:*`, `openai:*@BASE_URL[#text]`, `scripted:*`. The
   * default and the specs of `providers` are always allowed; a request naming anything else is refused.
   */
  models?: readonly string[];
  /** An OpenAI-compatible model's context window, where its server does not say. */
  contextTokens?: number;
  /** How long one model request may take before it is abandoned (and retried); default {@link MODEL_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Told what an OpenAI-compatible spec without `#...` was found to speak, once per spec. */
  onProtocol?: (spec: string, protocol: string, why: string) => void;
}

/**
 * Resolves a model spec, or the default when undefined, to a provider; one provider per spec per process. A spec
 * the worker's configuration does not allow fails `ModelError.NotAllowed` before anything is built, read or fetched.
 */
export interface ModelResolver {
  (spec?: string): ModelProvider;
  /**
   * The specs of the list a request names, or of the worker's default list, in order: every one allowed, or the list
   * is refused (`ModelError.NotAllowed`, naming the spec) before any is asked.
   */
  specsOf(requested?: string): string[];
  /** Serves `provider` for this exact spec from now on (which allows it). */
  register(spec: string, provider: ModelProvider): void;
}

function notConfigured(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, ModelError.NotConfigured);
}

/**
 * The default bound on one model request. Long enough for a 2,048-token reply from a small model on a slow CPU; a
 * server that stops answering costs this much per attempt, not the activity's ten minutes.
 */
export const MODEL_TIMEOUT_MS = 300_000;

/** Most allow-list entries a refusal names; a worker allowing more says how many it left out. */
const LISTED_ENTRIES = 10;

// One line the client can act on; a workflow's input chose the spec, so it is quoted cut and without userinfo.
function notAllowed(spec: string, allowed: readonly string[]): ApplicationFailure {
  const listed = allowed.slice(0, LISTED_ENTRIES).map(quotedSpec);
  if (allowed.length > LISTED_ENTRIES) listed.push(`${allowed.length - LISTED_ENTRIES} more`);
  return ApplicationFailure.nonRetryable(
    `model "${quotedSpec(spec)}" is not allowed on this worker: allowed are ${listed.join(', ') || 'none'}; ` +
      'add it to SCRATCHPAD_MODELS',
    ModelError.NotAllowed,
  );
}

/** The allow-list a resolver starts with: the default's specs, the given providers' specs and `models`, each once. */
function allowListOf(options: ModelResolverOptions): string[] {
  for (const entry of options.models ?? []) {
    const problem = modelAllowProblem(entry);
    if (problem) throw new Error(`invalid entry in the worker's models: ${problem}`);
  }
  const listProblem = options.defaultSpec === undefined ? undefined : modelListProblem(options.defaultSpec);
  if (listProblem) throw new Error(`invalid default model list: ${listProblem}`);
  const defaults = options.defaultSpec === undefined ? [] : modelListOf(options.defaultSpec);
  return [...new Set([...defaults, ...Object.keys(options.providers ?? {}), ...(options.models ?? [])])];
}

function buildProvider(spec: string, parsed: ModelSpec, options: ModelResolverOptions): ModelProvider {
  switch (parsed.provider) {
    case 'anthropic':
      if (!options.anthropicApiKey) {
        throw notConfigured(`model ${quotedSpec(spec)} needs ANTHROPIC_API_KEY on this worker; ${WORKER_MODEL_HELP}`);
      }
      return new AnthropicProvider({
        model: parsed.model,
        apiKey: options.anthropicApiKey,
        baseURL: options.anthropicBaseURL,
        timeoutMs: options.timeoutMs ?? MODEL_TIMEOUT_MS,
      });
    case 'openai':
      return new OpenAICompatibleProvider({
        model: parsed.model,
        baseURL: parsed.baseURL,
        apiKey: options.openaiApiKey,
        timeoutMs: options.timeoutMs ?? MODEL_TIMEOUT_MS,
        protocol: parsed.protocol,
        onProtocol: options.onProtocol,
        contextTokens: options.contextTokens,
      });
    case 'scripted':
      return ScriptedProvider.fromFile(parsed.path);
  }
}

/**
 * Probes the worker's default model at start, so the log says at once how it will be asked for calls (and `auto`
 * costs the first turn nothing). A server not up yet is probed again at the first call.
 */
export async function probeDefaultModel(resolve: ModelResolver, log: (line: string) => void): Promise<void> {
  let provider: ModelProvider;
  try {
    provider = resolve();
  } catch {
    return;
  }
  if (!provider.resolveProtocol) return;
  try {
    await provider.resolveProtocol(AbortSignal.timeout(60_000));
  } catch (error) {
    log(
      `model ${quotedSpec(provider.spec)}: not probed yet (${excerpt(errorMessage(error), 200)}); probing at its first call`,
    );
  }
}

/** The line a worker logs once it knows how a model is asked for calls. */
export function protocolLine(spec: string, protocol: string, why: string): string {
  return `model ${quotedSpec(spec)} speaks #${protocol}: ${why}`;
}

/**
 * Builds the worker's `resolveModel`. Providers are cached per spec string, so a scripted file's
 * cursor is shared by every activity call in this worker process.
 */
export function createModelResolver(options: ModelResolverOptions): ModelResolver {
  const providers = new Map<string, ModelProvider>(Object.entries(options.providers ?? {}));
  const allowed = allowListOf(options);
  const specsOf = (requested?: string): string[] => {
    const value = requested ?? options.defaultSpec;
    if (!value) throw notConfigured(WORKER_MODEL_HELP);
    const problem = modelListProblem(value);
    if (problem) {
      throw ApplicationFailure.nonRetryable(
        `invalid model list "${quotedSpec(value)}": ${problem}`,
        ModelError.BadRequest,
      );
    }
    const specs = modelListOf(value);
    const refused = specs.find((spec) => !providers.has(spec) && !isModelAllowed(spec, allowed));
    if (refused !== undefined) throw notAllowed(refused, allowed);
    return specs;
  };
  const resolve = (requested?: string): ModelProvider => {
    // The worker's default may be a list: alone, it stands for its first model.
    const spec = requested ?? (options.defaultSpec && modelListOf(options.defaultSpec)[0]);
    if (!spec) throw notConfigured(WORKER_MODEL_HELP);
    const cached = providers.get(spec);
    if (cached) return cached;
    // Before building: a spec is a URL the worker would POST to or a file it would read.
    if (!isModelAllowed(spec, allowed)) throw notAllowed(spec, allowed);
    let provider: ModelProvider;
    try {
      provider = buildProvider(spec, parseModelSpec(spec), options);
    } catch (error) {
      if (error instanceof ApplicationFailure) throw error;
      throw notConfigured(`cannot use model ${quotedSpec(spec)}: ${excerpt(errorMessage(error), 300)}`);
    }
    providers.set(spec, provider);
    return provider;
  };
  return Object.assign(resolve, {
    specsOf,
    register(spec: string, provider: ModelProvider): void {
      providers.set(spec, provider);
      if (!allowed.includes(spec)) allowed.push(spec);
    },
  });
}
