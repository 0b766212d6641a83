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
    const sketches = properties.map(([, value]) => compactSchema(value));
    const field = (key: string, sketch: string) => `"${key}"${required.has(key) ? '' : '?'}: ${sketch}`;
    // Many optional keys of one type (update_scratchpad's sections) would repeat the type per key; name them once.
    const shared = mostCommon(sketches.filter((_, index) => !required.has(properties[index]![0])));
    const sharing = properties.filter(([key], index) => !required.has(key) && sketches[index] === shared);
    if (sharing.length > 3) {
      const others = properties.flatMap(([key], index) =>
        sketches[index] === shared ? [] : [field(key, sketches[index]!)],
      );
      const keys = sharing.map(([key]) => key).join(', ');
      return `{${[...others, `"<key>"?: ${shared}`].join(', ')}} with <key> one of ${keys}`;
    }
    return `{${properties.map(([key], index) => field(key, sketches[index]!)).join(', ')}}`;
  }
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return typeof schema.type === 'string' ? schema.type : 'any';
}

function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
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
