import type { ToolCall } from '../../core/cycle/model';
import { envelopeSystem, envelopeToolCalls, speaksEnvelope } from './envelope';
import { compactSchema } from './json-protocol';
import type { OfferedTool } from './offered-tools';
import type { ProviderRequest } from './provider';
import { SYSTEM_PROMPTS } from './system-prompts';

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
    properties: { tool: { const: tool.name }, args: grammarSchema(tool.inputSchema) },
    required: ['tool', 'args'],
    additionalProperties: false,
  };
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
  const base = SYSTEM_PROMPTS[request.system];
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
      schema: grammarSchema(forced.inputSchema) as JsonSchema,
      system: [
        base,
        '',
        '## Reply format',
        `Reply with one JSON object: the arguments of the tool "${forced.name}".`,
        `${forced.name}: ${forced.description}`,
        `args: ${compactSchema(forced.inputSchema)}`,
      ].join('\n'),
      decode: (value, text) => ({
        text,
        toolCalls: isObject(value) ? [{ id: 'json-1', name: forced.name, input: value }] : [],
      }),
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
      return { text, toolCalls: namedCall(value, tools) };
    },
  };
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
