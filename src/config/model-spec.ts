import * as path from 'node:path';
import { ConfigError } from './errors';

export type ModelSpec =
  | { provider: 'anthropic'; model: string }
  | { provider: 'openai'; model: string; baseURL: string }
  | { provider: 'scripted'; path: string };

/**
 * Parses `anthropic:MODEL`, `openai:MODEL@BASE_URL` or `scripted:FILE.jsonl`.
 * The OpenAI model name may itself contain colons (`qwen2.5:7b`).
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  if (provider === 'anthropic' && rest) return { provider, model: rest };
  if (provider === 'scripted' && rest) return { provider, path: path.resolve(rest) };
  if (provider === 'openai') {
    const at = rest.lastIndexOf('@');
    const model = at < 0 ? rest : rest.slice(0, at);
    const baseURL = at < 0 ? 'http://localhost:11434/v1' : rest.slice(at + 1);
    if (model && /^https?:\/\//.test(baseURL)) return { provider, model, baseURL };
  }
  throw new ConfigError(
    `invalid model "${spec}": expected anthropic:MODEL, openai:MODEL@http://HOST:PORT/v1 or scripted:FILE.jsonl`,
  );
}

export const MODEL_HELP =
  'No usable model is configured. Set one of:\n' +
  '  ANTHROPIC_API_KEY=sk-...                              (uses anthropic:claude-sonnet-5-5)\n' +
  '  SCRATCHPAD_MODEL=anthropic:claude-sonnet-5-5          (with ANTHROPIC_API_KEY)\n' +
  '  SCRATCHPAD_MODEL=openai:qwen2.5:7b@http://localhost:11434/v1   (Ollama, llama.cpp, vLLM)\n' +
  '  SCRATCHPAD_MODEL=scripted:path/to/responses.jsonl     (replays recorded responses)\n' +
  'or pass --model with one of those values.';
