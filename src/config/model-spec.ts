import * as path from 'node:path';
import { ConfigError } from './errors';
import { modelListOf, modelListProblem } from '../core/cycle/model-list';

/**
 * How an OpenAI-compatible server is asked for calls: `tools` (native tool calling), `json` (constrained decoding to a
 * JSON Schema), `text` (the prompt alone), or `auto` (probed once per worker; a spec without `#...`).
 */
export type OpenAIProtocol = 'tools' | 'json' | 'text';
export type OpenAIProtocolChoice = OpenAIProtocol | 'auto';
const PROTOCOLS: readonly string[] = ['tools', 'json', 'text'] satisfies OpenAIProtocol[];

export type ModelSpec =
  | { provider: 'anthropic'; model: string }
  | { provider: 'openai'; model: string; baseURL: string; protocol: OpenAIProtocolChoice }
  | { provider: 'scripted'; path: string };

/**
 * Parses `anthropic:MODEL`, `openai:MODEL@BASE_URL[#tools|#json|#text]` or `scripted:FILE.jsonl`. The OpenAI model
 * name may itself contain colons (`qwen2.5:7b`); without a `#` the protocol is probed (`auto`).
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  if (provider === 'anthropic' && rest) return { provider, model: rest };
  if (provider === 'scripted' && rest) return { provider, path: path.resolve(rest) };
  if (provider === 'openai') {
    const hash = rest.lastIndexOf('#');
    const protocol = hash < 0 ? 'auto' : rest.slice(hash + 1);
    const address = hash < 0 ? rest : rest.slice(0, hash);
    const at = address.lastIndexOf('@');
    const model = at < 0 ? address : address.slice(0, at);
    const baseURL = at < 0 ? 'http://localhost:11434/v1' : address.slice(at + 1);
    const known = protocol === 'auto' || PROTOCOLS.includes(protocol);
    if (model && known && /^https?:\/\/[^#]+$/.test(baseURL)) {
      return { provider, model, baseURL, protocol: protocol as OpenAIProtocolChoice };
    }
  }
  throw new ConfigError(
    `invalid model "${spec}": expected anthropic:MODEL, openai:MODEL@http://HOST:PORT/v1[#tools|#json|#text] or scripted:FILE.jsonl`,
  );
}

/**
 * Parses a model list, `SPEC[,SPEC...]`: a call that fails for good on one model goes to the next (design.md, Model
 * fallback). One spec is a list of one; a bad entry is named with its place in the list.
 */
export function parseModelList(value: string): ModelSpec[] {
  const problem = modelListProblem(value);
  if (problem) throw new ConfigError(`invalid model list "${value.slice(0, 300)}": ${problem}`);
  const specs = modelListOf(value);
  return specs.map((spec, index) => {
    try {
      return parseModelSpec(spec);
    } catch (error) {
      if (specs.length === 1 || !(error instanceof ConfigError)) throw error;
      throw new ConfigError(`model ${index + 1} of the list: ${error.message}`);
    }
  });
}

/** {@link MODEL_HELP} in one line, as a worker reports it: it ends up in a cycle's error, notes and progress line. */
export const WORKER_MODEL_HELP =
  'No usable model is configured on this worker: set ANTHROPIC_API_KEY or SCRATCHPAD_MODEL (anthropic:MODEL, ' +
  'openai:MODEL@http://HOST:PORT/v1[#tools|#json|#text] or scripted:FILE.jsonl) where it runs and restart it ' +
  '(`scratchpad down && scratchpad up`), or name a model it allows with --model';

export const MODEL_HELP =
  'No usable model is configured. Set one of:\n' +
  '  ANTHROPIC_API_KEY=sk-...                              (uses anthropic:claude-sonnet-5-5)\n' +
  '  SCRATCHPAD_MODEL=anthropic:claude-sonnet-5-5          (with ANTHROPIC_API_KEY)\n' +
  '  SCRATCHPAD_MODEL=openai:qwen2.5:7b@http://localhost:11434/v1   (Ollama, llama.cpp, vLLM, LM Studio)\n' +
  '  SCRATCHPAD_MODEL=openai:MODEL@http://HOST:PORT/v1#json        (#tools, #json or #text: skip the probe)\n' +
  '  SCRATCHPAD_MODEL=scripted:path/to/responses.jsonl     (replays recorded responses)\n' +
  '  SCRATCHPAD_MODEL=SPEC,SPEC                            (a list: a model that fails for good hands over to the next)\n' +
  'or pass --model with one of those values.';
