import type { ToolCall } from '../../core/cycle/model';
import { UPDATE_KEYS, type UpdateKey } from '../../core/scratchpad/scratchpad';
import { envelopeSystem, envelopeToolCalls, speaksEnvelope } from './envelope';
import { compactSchema } from './json-protocol';
import type { OfferedTool } from './offered-tools';
import type { ProviderRequest } from './provider';
import { systemPrompt } from './system-prompts';

type JsonSchema = Record<string, unknown>;

/**
 * A request in `#json` mode (constrained decoding): the schema the server must hold the reply to, the system prompt
 * that explains it, and how a reply that matches becomes text and calls. Undefined: the reply is free text.
 */
export interface JsonMode {
  name: string;
  schema: JsonSchema;
  system: string;
  decode(value: unknown, text: string): { text: string; toolCalls: ToolCall[] };
}

// Keywords a grammar can hold cheaply. Length and count bounds become repetitions a server expands into large
// grammars (and the workflow checks them anyway); formats and patterns are dialects servers read differently.
const DROPPED = new Set(['maxLength', 'minLength', 'maxItems', 'minItems', 'pattern', 'format', 'default', '$schema']);

/** `schema` without the keywords constrained decoding handles badly; the workflow still validates in full. */
export function grammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(grammarSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const kept: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (DROPPED.has(key)) continue;
    // `properties` maps names to schemas: its keys are names, never keywords.
    kept[key] =
      key === 'properties' && value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value as JsonSchema).map(([name, inner]) => [name, grammarSchema(inner)]))
        : grammarSchema(value);
  }
  return kept;
}

function callBranch(tool: OfferedTool): JsonSchema {
  return {
    type: 'object',
    properties: { tool: { const: tool.name }, args: argumentsSchema(tool) },
    required: ['tool', 'args'],
    additionalProperties: false,
  };
}

/** Longest value of one key a constrained update may write: a small model that repeats itself stops here. */
const CONSTRAINED_VALUE_CHARS = 300;

/**
 * `update_scratchpad` as constrained decoding asks for it: what a turn most often changes first (a grammar keeps the
 * keys in this order), one plain type per key, and values of bounded length. The full schema still checks the call.
 */
function buildConstrainedUpdateSchema(): JsonSchema {
  const text = { type: 'string', maxLength: CONSTRAINED_VALUE_CHARS };
  const list = { type: 'array', items: text };
  const first: UpdateKey[] = ['understanding_known', 'identity_user', 'trajectory_now', 'understanding_believed'];
  const order = [...first, ...UPDATE_KEYS.filter((key) => !first.includes(key))];
  const properties = Object.fromEntries(
    order.map((key) => {
      if (key === 'goals' || key === 'pending_actions') return [key, list];
      if (key === 'completed_tasks') {
        const task = { type: 'object', properties: { task: text, summary: text }, required: ['task', 'summary'] };
        return [key, { type: 'array', items: task }];
      }
      return [key, text];
    }),
  );
  return { type: 'object', properties, additionalProperties: false };
}

let constrainedUpdate: JsonSchema | undefined;

/** The schema a forced call's arguments are held to. */
function argumentsSchema(tool: OfferedTool): JsonSchema {
  return tool.name === 'update_scratchpad'
    ? (constrainedUpdate ??= buildConstrainedUpdateSchema())
    : (grammarSchema(tool.inputSchema) as JsonSchema);
}

const REPLY_BRANCH: JsonSchema = {
  type: 'object',
  properties: { reply: { type: 'string' } },
  required: ['reply'],
  additionalProperties: false,
};

function toolList(tools: readonly OfferedTool[]): string[] {
  return tools.map((tool) => `- ${tool.name}: ${tool.description}\n  args: ${compactSchema(tool.inputSchema)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The call a `{tool, args}` reply names; nothing when it names no offered tool (the workflow then notes why). */
function namedCall(value: unknown, tools: readonly OfferedTool[]): ToolCall[] {
  if (!isObject(value) || typeof value.tool !== 'string') return [];
  if (!tools.some((tool) => tool.name === value.tool)) return [];
  return [{ id: 'json-1', name: value.tool, input: isObject(value.args) ? value.args : {} }];
}

/**
 * The `#json` form of a request: a forced single tool is constrained to its arguments; a forced choice to
 * `{"tool", "args"}` with one branch per tool; `auto` adds a `{"reply"}` branch for plain answers; a staged run's
 * turn to its envelope. A request that offers no tools is free text.
 */
export function jsonModeOf(request: ProviderRequest): JsonMode | undefined {
  const { tools, toolChoice } = request;
  if (tools.length === 0) return undefined;
  const base = systemPrompt(request.system);
  if (speaksEnvelope(request)) {
    return {
      name: 'envelope',
      schema: ENVELOPE_SCHEMA,
      system: envelopeSystem(request),
      decode: (_value, text) => ({ text, toolCalls: envelopeToolCalls(text, request) }),
    };
  }
  const forced = typeof toolChoice === 'object' ? tools.find((tool) => tool.name === toolChoice.name) : undefined;
  if (forced) {
    return {
      name: forced.name,
      schema: argumentsSchema(forced),
      system: [
        base,
        '',
        '## Reply format',
        `Reply with one JSON object: the arguments of the tool "${forced.name}".`,
        `${forced.name}: ${forced.description}`,
        `args: ${compactSchema(forced.inputSchema)}`,
      ].join('\n'),
      // A call is the reply, as a native tool call is: its JSON is not also text a user could be shown.
      decode: (value, text) =>
        isObject(value)
          ? { text: '', toolCalls: [{ id: 'json-1', name: forced.name, input: value }] }
          : { text, toolCalls: [] },
    };
  }
  const free = toolChoice === 'auto';
  return {
    name: free ? 'reply_or_call' : 'call',
    schema: { anyOf: [...(free ? [REPLY_BRANCH] : []), ...tools.map(callBranch)] },
    system: [
      base,
      '',
      '## Reply format',
      'Reply with one JSON object:',
      ...(free ? ['{"reply": "<your answer to the user>"} to answer, or'] : []),
      '{"tool": "<name>", "args": {...}} to use a tool.',
      '',
      'Tools:',
      ...toolList(tools),
    ].join('\n'),
    decode: (value, text) => {
      if (isObject(value) && typeof value.reply === 'string') return { text: value.reply, toolCalls: [] };
      const cut = value === undefined ? cutReply(text) : undefined;
      if (cut !== undefined) return { text: cut, toolCalls: [] };
      const calls = namedCall(value, tools);
      return { text: calls.length > 0 ? '' : text, toolCalls: calls };
    },
  };
}

/**
 * The text of a `{"reply": "...` that the output cap cut before it closed: the user gets the words written so far,
 * not a fragment of JSON. Undefined for anything else.
 */
export function cutReply(text: string): string | undefined {
  const opening = /^\s*\{\s*"reply"\s*:\s*"/.exec(text);
  if (!opening) return undefined;
  // Drop a half-written escape at the very end, then read the rest as the JSON string it was becoming.
  const body = text.slice(opening[0].length).replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
  for (let end = body.length; end >= 0; end--) {
    try {
      const value: unknown = JSON.parse(`"${body.slice(0, end)}"`);
      if (typeof value === 'string') return value;
    } catch {
      // A closing quote and what followed it, or a cut escape: shorter until it reads.
    }
  }
  return undefined;
}

const ENVELOPE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    plan: { type: 'array', items: { type: 'string' } },
    files: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
    scratchpad: { type: 'object' },
    status: { type: 'string' },
  },
  additionalProperties: false,
};
