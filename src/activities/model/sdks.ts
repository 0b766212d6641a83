import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

// The providers' SDKs are loaded at their first use, not with the worker: each worker start (a command's own
// in-process worker included) whose models never call one would otherwise spend 40-100 ms of CPU loading it.

/** The `openai` SDK's client class. */
export function openaiSdk(): typeof OpenAI {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use, see above
  return (require('openai') as typeof import('openai')).OpenAI;
}

/** A client of an OpenAI-compatible server, with the SDK's retries off: Temporal retries. */
export function openaiClient(baseURL: string, apiKey: string | undefined): OpenAI {
  return new (openaiSdk())({
    baseURL: baseURL.replace(/\/+$/, ''),
    // Local servers want no key; the SDK insists on one, so without a key none is sent.
    apiKey: apiKey ?? 'none',
    ...(apiKey === undefined && { defaultHeaders: { authorization: null } }),
    maxRetries: 0,
    // Never the worker's OPENAI_ORG_ID / OPENAI_PROJECT_ID, which the SDK would send to whatever server this is.
    organization: null,
    project: null,
  });
}

/** A client of the Anthropic API, with the SDK's retries off: Temporal retries. */
export function anthropicClient(options: { apiKey: string; baseURL?: string; timeoutMs?: number }): Anthropic {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use, see above
  const { Anthropic: Client } = require('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk');
  return new Client({ apiKey: options.apiKey, baseURL: options.baseURL, timeout: options.timeoutMs, maxRetries: 0 });
}
