import { z } from 'zod';
import type { ToolCall } from '../../core/cycle/model';
import { objectSpans } from '../../core/cycle/parse';
import { systemPrompt } from './system-prompts';
import type { ProviderRequest } from './provider';

/**
 * The reply envelope for small local models (design.md, The reply envelope): one JSON object
 * `{plan?, files?, scratchpad?, status?}` as text, which they produce more reliably than tool calls. It is translated
 * into the same actions Anthropic takes with native tools: `plan`, `write_files`, `done`.
 */
const EnvelopeSchema = z.object({
  plan: z.array(z.string().max(2000)).max(50).optional(),
  files: z
    .array(z.object({ path: z.string().max(1000), content: z.string() }))
    .max(10)
    .optional(),
  scratchpad: z.unknown().optional(),
  status: z.string().max(500).optional(),
});
type Envelope = z.infer<typeof EnvelopeSchema>;

/** Staged runs speak the envelope; every other request keeps the `{"tool", "args"}` JSON text protocol. */
export function speaksEnvelope(request: ProviderRequest): boolean {
  return request.system === 'staged' || request.system === 'staged_plan';
}

export function envelopeSystem(request: ProviderRequest): string {
  const planning = request.system === 'staged_plan';
  return [
    systemPrompt(request.system),
    '',
    '## Reply format',
    'Reply with exactly one JSON object (no second object):',
    planning
      ? '{"plan": ["<stage>", ...], "scratchpad": {"plan": [...], "next": "..."}}'
      : '{"files": [{"path": "<relative path>", "content": "<whole file>"}], "scratchpad": {...}, "status": "done"}',
    planning
      ? 'Write no files in this reply.'
      : 'Put every file of this stage in "files", whole. Set "status": "done" only when the stage is complete; ' +
        'a reply with no files ends the stage.',
  ].join('\n');
}

function parseEnvelope(text: string): Envelope | undefined {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
  for (const body of fenced ? [fenced[1] as string, text] : [text]) {
    for (const span of objectSpans(body)) {
      let json: unknown;
      try {
        json = JSON.parse(span);
      } catch {
        continue;
      }
      if (json === null || typeof json !== 'object' || 'tool' in json) continue;
      const parsed = EnvelopeSchema.safeParse(json);
      if (parsed.success && Object.keys(json).length > 0) return parsed.data;
    }
  }
  return undefined;
}

/** The action an envelope reply asks for; none when the text holds no envelope (the text protocol then reads it). */
export function envelopeToolCalls(text: string, request: ProviderRequest): ToolCall[] {
  const envelope = parseEnvelope(text);
  if (!envelope) return [];
  const notes = envelope.scratchpad === undefined ? {} : { scratchpad: envelope.scratchpad };
  const offered = (name: string) => request.tools.some((tool) => tool.name === name);
  if (envelope.plan && offered('plan')) {
    return [{ id: 'envelope', name: 'plan', input: { stages: envelope.plan, ...notes } }];
  }
  if (envelope.files && envelope.files.length > 0 && offered('write_files')) {
    return [{ id: 'envelope', name: 'write_files', input: { files: envelope.files, ...notes } }];
  }
  if (offered('done')) {
    return [{ id: 'envelope', name: 'done', input: { summary: envelope.status ?? 'no files', ...notes } }];
  }
  return [];
}
