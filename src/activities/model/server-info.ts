/** What an OpenAI-compatible server says about itself, where it says anything. */
export interface ServerInfo {
  /** Tokens of context the server holds per request (llama.cpp `n_ctx`, vLLM `max_model_len`, Ollama's). */
  contextTokens?: number;
  /** Whether its chat template calls tools (llama.cpp's `chat_template_caps`, Ollama's `capabilities`). */
  toolCalls?: boolean;
  /** Where the answer came from, for the worker's log. */
  source?: string;
}

const INFO_TIMEOUT_MS = 5000;

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

async function getJson(url: string, init: RequestInit, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(INFO_TIMEOUT_MS);
  try {
    const response = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!response.ok) return undefined;
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

type Json = Record<string, unknown> | undefined;

/** llama.cpp's `/props`: the context per slot and the template's capabilities. */
function llamaProps(body: unknown): ServerInfo | undefined {
  const props = body as Json;
  const settings = props?.default_generation_settings as Json;
  const caps = props?.chat_template_caps as Json;
  const contextTokens = positive(settings?.n_ctx);
  if (contextTokens === undefined && caps === undefined) return undefined;
  const toolCalls = typeof caps?.supports_tool_calls === 'boolean' ? caps.supports_tool_calls : undefined;
  return { contextTokens, toolCalls, source: 'llama.cpp /props' };
}

/** vLLM's `/v1/models`: `max_model_len` of the model served. */
function vllmModels(body: unknown, model: string): ServerInfo | undefined {
  const data = (body as Json)?.data;
  if (!Array.isArray(data)) return undefined;
  const entries = data as Json[];
  const entry = entries.find((item) => item?.id === model) ?? (entries.length === 1 ? entries[0] : undefined);
  const contextTokens = positive(entry?.max_model_len);
  return contextTokens === undefined ? undefined : { contextTokens, source: 'vLLM /v1/models' };
}

/** Ollama's `/api/show`: `<architecture>.context_length` and whether the model takes tools. */
function ollamaShow(body: unknown): ServerInfo | undefined {
  const show = body as Json;
  const info = show?.model_info as Json;
  const key = info && Object.keys(info).find((name) => name.endsWith('.context_length'));
  const contextTokens = key ? positive(info[key]) : undefined;
  const capabilities = show?.capabilities;
  const toolCalls = Array.isArray(capabilities) ? capabilities.includes('tools') : undefined;
  if (contextTokens === undefined && toolCalls === undefined) return undefined;
  return { contextTokens, toolCalls, source: 'Ollama /api/show' };
}

/**
 * Asks the server behind `baseURL` what it is, in the ways llama.cpp, vLLM and Ollama answer; nothing when it says
 * nothing (a hosted API). Never throws: every question is best-effort, with a short timeout.
 */
export async function serverInfo(
  baseURL: string,
  model: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<ServerInfo> {
  const base = baseURL.replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');
  const get = { headers };
  const props = llamaProps(await getJson(`${root}/props`, get, signal));
  if (props) return props;
  const vllm = vllmModels(await getJson(`${base}/models`, get, signal), model);
  if (vllm) return vllm;
  const post = { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } };
  const ollama = ollamaShow(await getJson(`${root}/api/show`, { ...post, body: JSON.stringify({ model }) }, signal));
  return ollama ?? {};
}
