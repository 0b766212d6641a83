import { systemPrompt } from './system-prompts';
import type { OfferedTool } from './offered-tools';
import type { ProviderRequest } from './provider';

type JsonSchema = Record<string, unknown>;

/** A one-line type sketch of a JSON schema, e.g. `{"path": string, "encoding"?: "utf-8" | "binary"}`. */
export function compactSchema(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) return variants.map(compactSchema).join(' | ');
  if (schema.type === 'array') return `${wrapUnion(compactSchema((schema.items ?? {}) as JsonSchema))}[]`;
  if (schema.type === 'object' || schema.properties) {
    const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
    const required = new Set((schema.required ?? []) as string[]);
    const fields = properties.map(([key, value]) => ({
      key,
      sketch: compactSchema(value),
      optional: !required.has(key),
    }));
    const field = ({ key, sketch, optional }: (typeof fields)[number]) => `"${key}"${optional ? '?' : ''}: ${sketch}`;
    // Many optional keys of one type (update_scratchpad's sections) would repeat the type per key; name them once.
    const byType = new Map<string, string[]>();
    for (const { key, sketch, optional } of fields) {
      if (optional) byType.set(sketch, [...(byType.get(sketch) ?? []), key]);
    }
    const [shared, keys = []] = [...byType].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    if (keys.length > 3) {
      const others = fields.filter(({ sketch, optional }) => !optional || sketch !== shared).map(field);
      return `{${[...others, `"<key>"?: ${shared}`].join(', ')}} with <key> one of ${keys.join(', ')}`;
    }
    return `{${fields.map(field).join(', ')}}`;
  }
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return typeof schema.type === 'string' ? schema.type : 'any';
}

function wrapUnion(sketch: string): string {
  return sketch.includes(' | ') ? `(${sketch})` : sketch;
}

function toolLines({ name, description, inputSchema: schema }: OfferedTool): string[] {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const described = properties.filter(([, value]) => typeof value.description === 'string');
  return [
    `- ${name}: ${description}`,
    `  args: ${compactSchema(schema)}`,
    ...described.map(([key, value]) => `    ${key}: ${value.description as string}`),
  ];
}

function choiceLine(choice: ProviderRequest['toolChoice']): string {
  if (typeof choice === 'object') return `This reply MUST use the tool "${choice.name}".`;
  return 'This reply MUST call one of the tools.';
}

/**
 * The JSON text protocol for models without native tool use (design.md, Reading a reply): the named system prompt
 * plus a section asking for exactly one `{"tool": ..., "args": {...}}` object. No tools, no section.
 */
export function jsonProtocolSystem(request: ProviderRequest): string {
  const system = systemPrompt(request.system);
  const tools = request.tools;
  if (tools.length === 0) return system;
  return [
    system,
    '',
    '## Reply format',
    ...(request.toolChoice === 'auto'
      ? [
          'To use a tool, reply with exactly one JSON object and nothing else:',
          '{"tool": "<name>", "args": {...}}',
          'Otherwise reply to the user in plain text.',
        ]
      : [
          'Reply with exactly one JSON object and nothing else (no prose, no second object):',
          '{"tool": "<name>", "args": {...}}',
          choiceLine(request.toolChoice),
        ]),
    '',
    'Tools:',
    ...tools.flatMap(toolLines),
  ].join('\n');
}
