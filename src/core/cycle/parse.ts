import type { ModelResponse } from './model';
import { headCodePoints } from '../text';

/** One thing the model asked for. */
export interface Action {
  tool: string;
  args: Record<string, unknown>;
  callId?: string;
}

export type ParsedAction = { ok: true; action: Action } | { ok: false; error: string };

/** Deepest nesting of arrays and objects accepted in tool arguments; deeper would overflow recursive JSON code. */
export const MAX_NESTING_DEPTH = 64;

/** Whether `value` nests arrays and objects deeper than `limit`, measured without recursion. */
export function isNestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(current)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

function tooDeep(tool: string): { ok: false; error: string } {
  return { ok: false, error: `arguments of ${tool} nest deeper than ${MAX_NESTING_DEPTH} levels` };
}

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

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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
  if (isNestedDeeperThan(args, MAX_NESTING_DEPTH)) return tooDeep(record.tool);
  return { ok: true, action: { tool: record.tool, args: args as Record<string, unknown> } };
}

/**
 * The JSON text protocol (design.md, Reading a reply): one `{"tool": ..., "args": ...}` object, optionally inside a
 * code fence or surrounded by prose. Zero or several candidate objects is a parse failure.
 */
export function parseTextAction(text: string): ParsedAction {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'empty response' };
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(trimmed);
  const body = fenced?.[1] ?? trimmed;
  const candidates = objectSpans(body);
  if (candidates.length === 0)
    return { ok: false, error: `no JSON object in response: ${headCodePoints(trimmed, 120)}` };
  if (candidates.length > 1) return { ok: false, error: `expected one JSON object, found ${candidates.length}` };
  try {
    return toAction(JSON.parse(candidates[0] as string));
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
}

/** A response's calls: all of its native tool calls in order, or one call in the JSON text protocol. */
export type ParsedCalls = { ok: true; calls: Action[]; native: boolean } | { ok: false; error: string };

// Arguments nested too deep would overflow recursive JSON code downstream: they arrive empty, and the tool refuses.
function nativeCalls(response: ModelResponse): Action[] {
  return response.toolCalls.map((call) => ({
    tool: call.name,
    args: (isNestedDeeperThan(call.input, MAX_NESTING_DEPTH) ? {} : (call.input ?? {})) as Record<string, unknown>,
    callId: call.id,
  }));
}

/** Native tool calls win; otherwise the text is read with the JSON text protocol. */
export function parseToolCalls(response: ModelResponse): ParsedCalls {
  if (response.toolCalls.length === 0) {
    const parsed = parseTextAction(response.text);
    return parsed.ok ? { ok: true, calls: [parsed.action], native: false } : parsed;
  }
  const malformed = response.toolCalls.find(({ input }) => !isObject(input ?? {}));
  if (malformed) return { ok: false, error: `arguments of ${malformed.name} must be an object` };
  const deep = response.toolCalls.find(({ input }) => isNestedDeeperThan(input, MAX_NESTING_DEPTH));
  if (deep) return tooDeep(deep.name);
  return { ok: true, calls: nativeCalls(response), native: true };
}

/**
 * The calls of a chat response. Prose is the reply itself: text is a call only when it is one JSON-protocol
 * object naming an offered tool. Malformed native arguments reach the tool, which refuses them.
 */
export function chatCalls(response: ModelResponse, offered: readonly string[]): Action[] {
  if (response.toolCalls.length > 0) return nativeCalls(response);
  const parsed = parseTextAction(response.text);
  return parsed.ok && offered.includes(parsed.action.tool) ? [parsed.action] : [];
}

/** The first call only, for the in-process floor of `bench/cycle-overhead`; cycles use {@link parseToolCalls}. */
export function parseAction(response: ModelResponse): ParsedAction {
  const parsed = parseToolCalls(response);
  if (!parsed.ok) return parsed;
  return { ok: true, action: parsed.calls[0] as Action };
}
