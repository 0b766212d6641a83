import { z } from 'zod';
import { type ModelSpec, parseModelSpec } from './model-spec';

/** The entries that stand for many specs; a `*` anywhere else is refused, so no entry allows more than it reads. */
export const MODEL_WILDCARDS = 'anthropic:*, openai:*@BASE_URL[#text], scripted:*';

function parsed(spec: string): ModelSpec | undefined {
  try {
    return parseModelSpec(spec);
  } catch {
    return undefined;
  }
}

/** Whether `entry` is a wildcard; an OpenAI one holds its base URL and, when it names one, its protocol. */
function wildcardOf(entry: string): ModelSpec | 'anthropic' | 'scripted' | undefined {
  if (entry === 'anthropic:*') return 'anthropic';
  if (entry === 'scripted:*') return 'scripted';
  const openai = entry.startsWith('openai:*') ? parsed(entry) : undefined;
  return openai?.provider === 'openai' && openai.model === '*' ? openai : undefined;
}

/** Why `entry` cannot be an entry of an allow-list of model specs, or undefined when it can. */
export function modelAllowProblem(entry: string): string | undefined {
  if (wildcardOf(entry)) return undefined;
  if (!parsed(entry)) {
    return `"${entry.slice(0, 100)}" is not a model spec (anthropic:MODEL, openai:MODEL@URL[#text], scripted:FILE)`;
  }
  if (entry.includes('*'))
    return `"${entry.slice(0, 100)}": a wildcard stands only for a whole spec: ${MODEL_WILDCARDS}`;
  return undefined;
}

/** An entry of `SCRATCHPAD_MODELS`, refused with the reason when it is neither a spec nor a wildcard. */
export const ModelAllowEntry = z.string().superRefine((entry, context) => {
  const problem = modelAllowProblem(entry);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/**
 * Whether a worker whose allow-list is `allowed` may resolve `spec`: it is named exactly, or a wildcard covers it —
 * `anthropic:*` any Anthropic model (the worker's own endpoint and key), `openai:*@URL` any model at exactly that
 * base URL (and protocol, when the entry names one), `scripted:*` any script file.
 */
export function isModelAllowed(spec: string, allowed: readonly string[]): boolean {
  if (allowed.includes(spec)) return true;
  const requested = parsed(spec);
  if (!requested) return false;
  return allowed.some((entry) => {
    const wildcard = wildcardOf(entry);
    if (wildcard === undefined) return false;
    if (typeof wildcard === 'string') return wildcard === requested.provider;
    if (wildcard.provider !== 'openai' || requested.provider !== 'openai') return false;
    const anyProtocol = !entry.includes('#');
    return requested.baseURL === wildcard.baseURL && (anyProtocol || requested.protocol === wildcard.protocol);
  });
}
