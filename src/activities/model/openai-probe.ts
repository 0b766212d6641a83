import type { ApplicationFailure } from '@temporalio/common';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { OpenAIProtocol } from '../../config';
import { excerpt } from './excerpt';
import { openaiSdk } from './sdks';
import type { ServerInfo } from './server-info';

/** What a server answers for each protocol: a forced call of a tiny tool, then a tiny schema. */
const PROBE_TOOL = {
  type: 'function' as const,
  function: {
    name: 'ping',
    description: 'Answer the ping.',
    parameters: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
};
const PROBE_SCHEMA = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
  additionalProperties: false,
};
const PROBE_MESSAGES: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Call the ping tool.' }];

/** `text` as JSON, or undefined. */
export function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How a probe reaches the server, and what a failure that is not a refusal becomes. */
export interface ProbeTarget {
  model: string;
  send(params: ChatCompletionCreateParamsNonStreaming): Promise<ChatCompletion>;
  fail(error: unknown): ApplicationFailure;
}

/** One probe request: its completion, or why a server refused it (4xx); anything else fails the call. */
async function probeRequest(
  target: ProbeTarget,
  params: ChatCompletionCreateParamsNonStreaming,
): Promise<{ ok: true; completion: ChatCompletion } | { ok: false; reason: string }> {
  try {
    return { ok: true, completion: await target.send(params) };
  } catch (error) {
    const status = error instanceof openaiSdk().APIError ? error.status : undefined;
    if (typeof status !== 'number' || status >= 500 || status === 401 || status === 403 || status === 404) {
      throw target.fail(error);
    }
    return { ok: false, reason: `${status}: ${excerpt((error as Error).message, 120)}` };
  }
}

/**
 * How a server that does not declare tool calling (or declines it) answers: a tiny forced tool call, then a tiny
 * schema-constrained request; the first that works wins, else the prompt alone.
 */
export async function probeCalls(
  info: ServerInfo,
  target: ProbeTarget,
): Promise<{ protocol: OpenAIProtocol; why: string }> {
  // Room for a sentence before the call: some servers let the model speak first.
  const base = { model: target.model, messages: PROBE_MESSAGES, max_tokens: 64, temperature: 0 };
  const forced = { type: 'function' as const, function: { name: PROBE_TOOL.function.name } };
  const tools =
    info.toolCalls === false
      ? undefined
      : await probeRequest(target, { ...base, tools: [PROBE_TOOL], tool_choice: forced });
  if (tools?.ok && tools.completion.choices?.[0]?.message?.tool_calls?.some((call) => call.type === 'function')) {
    return { protocol: 'tools', why: 'the server made a forced tool call' };
  }
  const toolsWhy = !tools
    ? `${info.source} declares no tool calling`
    : tools.ok
      ? 'a forced tool call came back as text'
      : `tools refused (${tools.reason})`;
  const format = { type: 'json_schema' as const, json_schema: { name: 'ping', schema: PROBE_SCHEMA } };
  const json = await probeRequest(target, { ...base, response_format: format });
  const value = json.ok ? parsedJson(json.completion.choices?.[0]?.message?.content ?? '') : undefined;
  if (typeof (value as { ok?: unknown } | undefined)?.ok === 'boolean') {
    return { protocol: 'json', why: `${toolsWhy}; the server held a reply to a JSON Schema` };
  }
  const jsonWhy = json.ok ? 'a schema-constrained reply did not match' : `json_schema refused (${json.reason})`;
  return { protocol: 'text', why: `${toolsWhy}; ${jsonWhy}` };
}
