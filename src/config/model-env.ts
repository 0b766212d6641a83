import { z } from 'zod';
import { ModelAllowEntry } from './model-allow';

/** The variables that say which models a worker reaches and how; `list` reads a comma-separated value. */
export function modelEnv(list: z.ZodType<string[], string | undefined>) {
  return {
    SCRATCHPAD_MODEL: z
      .string()
      .min(1)
      .optional()
      .describe(
        'anthropic:MODEL | openai:MODEL@http://HOST:PORT/v1[#tools|#json|#text] | scripted:FILE.jsonl; several, ' +
          'comma-separated, are tried in order: a model that fails for good hands the call to the next',
      ),
    SCRATCHPAD_MODELS: list
      .pipe(z.array(ModelAllowEntry))
      .default([])
      .describe(
        'more model specs a workflow may name besides SCRATCHPAD_MODEL, comma-separated: exact specs, anthropic:*, ' +
          'openai:*@BASE_URL, scripted:*',
      ),
    ANTHROPIC_API_KEY: z
      .string()
      .min(1)
      .optional()
      .describe('Anthropic key (alone it selects anthropic:claude-sonnet-5-5)'),
    ANTHROPIC_BASE_URL: z.url().optional().describe('alternative Messages API endpoint'),
    OPENAI_API_KEY: z
      .string()
      .min(1)
      .optional()
      .describe('bearer token for an OpenAI-compatible server that wants one (vLLM --api-key); none is sent otherwise'),
    SCRATCHPAD_CONTEXT_TOKENS: z.coerce
      .number()
      .int()
      .min(256)
      .optional()
      .describe(
        "an OpenAI-compatible model's context window in tokens, where its server does not say (llama.cpp, vLLM and Ollama do)",
      ),
    SCRATCHPAD_MODEL_TIMEOUT: z.coerce
      .number()
      .int()
      .min(1)
      .max(3600)
      .optional()
      .describe(
        'seconds one model request may take before it is abandoned and retried (default 300; a hung server ' +
          'otherwise holds a call until the activity times out)',
      ),
  };
}
