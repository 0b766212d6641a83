import type { ModelResponse } from './model';

/** One thing the model asked for. */
export interface Action {
  tool: string;
  args: Record<string, unknown>;
  callId?: string;
}

export type ParsedAction = { ok: true; action: Action } | { ok: false; error: string };

/** Scans for balanced `{...}` spans outside of JSON strings. */
export function objectSpans(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) inString = true;
    else if (char === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (char === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, index + 1));
    }
  }
  return spans;
}

function toAction(value: unknown): ParsedAction {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'expected a JSON object {"tool": ..., "args": {...}}' };
  }
  const record = value as Record<string, unknown>;
  if (typeof record.tool !== 'string' || record.tool.trim() === '') {
    return { ok: false, error: 'the JSON object has no "tool" string' };
  }
  const args = record.args ?? {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, error: `"args" of ${record.tool} must be an object` };
  }
  return { ok: true, action: { tool: record.tool, args: args as Record<string, unknown> } };
}

/**
 * Seed 000's JSON text protocol: one `{"tool": ..., "args": ...}` object, optionally inside a
 * code fence or surrounded by prose. Zero or several candidate objects is a parse failure.
 */
export function parseTextAction(text: string): ParsedAction {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'empty response' };
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(trimmed);
  const body = fenced?.[1] ?? trimmed;
  const candidates = objectSpans(body);
  if (candidates.length === 0) return { ok: false, error: `no JSON object in response: ${trimmed.slice(0, 120)}` };
  if (candidates.length > 1) return { ok: false, error: `expected one JSON object, found ${candidates.length}` };
  try {
    return toAction(JSON.parse(candidates[0] as string));
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
}

/** Native tool calls win; otherwise the text is read with the JSON text protocol. */
export function parseAction(response: ModelResponse): ParsedAction {
  const call = response.toolCalls[0];
  if (call) {
    const input = call.input ?? {};
    if (typeof input !== 'object' || Array.isArray(input)) {
      return { ok: false, error: `arguments of ${call.name} must be an object` };
    }
    return { ok: true, action: { tool: call.name, args: input as Record<string, unknown>, callId: call.id } };
  }
  return parseTextAction(response.text);
}
