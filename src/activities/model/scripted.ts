import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { type ModelResponse, type Usage, messagesChars } from '../../core/cycle/model';
import { flattenToolUse } from '../../core/cycle/flatten-messages';
import { systemPrompt } from './system-prompts';
import type { ModelProvider, ProviderRequest, TextListener } from './provider';
import { ModelError } from '../../common/failure-types';

/** One scripted reply: native tool calls, text, both, or a thrown `ApplicationFailure`. */
export const ScriptEntrySchema = z
  .strictObject({
    text: z.string().optional(),
    tool: z.string().min(1).optional(),
    args: z.record(z.string(), z.unknown()).optional(),
    /** Several native tool calls in one response, in order (after `tool`, when both are given). */
    calls: z
      .array(z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).default({}) }))
      .min(1)
      .optional(),
    error: z
      .strictObject({
        type: z.string().min(1),
        message: z.string(),
        nonRetryable: z.boolean().default(false),
        nextRetryDelayMs: z.number().int().nonnegative().optional(),
      })
      .optional(),
    usage: z
      .strictObject({
        inputTokens: z.number().int().nonnegative(),
        outputTokens: z.number().int().nonnegative(),
        cacheReadTokens: z.number().int().nonnegative(),
        cacheWriteTokens: z.number().int().nonnegative(),
      })
      .partial()
      .optional(),
    delayMs: z.number().int().nonnegative().optional(),
    /**
     * Answers every request whose messages contain all these strings, instead of being replayed once in order. A
     * script of such entries keeps no position, so a worker restarted mid-cycle answers as its predecessor would.
     */
    match: z.array(z.string().min(1)).min(1).optional(),
  })
  .refine((entry) => [entry.text, entry.tool, entry.calls, entry.error].some((value) => value !== undefined), {
    message: 'an entry needs "text", "tool", "calls" or "error"',
  })
  // With "error", "text" is what a streamed reply wrote before it failed.
  .refine((entry) => !entry.error || [entry.tool, entry.calls].every((value) => value === undefined), {
    message: '"error" cannot be combined with "tool" or "calls"',
  })
  .refine((entry) => entry.args === undefined || entry.tool !== undefined, { message: '"args" needs "tool"' });
export type ScriptEntry = z.input<typeof ScriptEntrySchema>;
type ParsedEntry = z.output<typeof ScriptEntrySchema>;

/**
 * What is wrong with an entry, in the schema's words only: the path (the schema's field names and indexes) and the
 * rule, never a value, nor the name of a field the schema does not have, since the file may not be a script at all.
 */
function invalid(where: string, error: z.ZodError): Error {
  const problems = error.issues.map((issue) => {
    const rule = issue.code === 'unrecognized_keys' ? 'a field scripts do not have' : issue.message;
    return issue.path.length > 0 ? `${issue.path.join('.')}: ${rule}` : rule;
  });
  return new Error(`${where}: ${problems.join('; ')}`);
}

/**
 * Parses a JSONL script; blank lines and `//` comments are skipped, a bad line is named by number. The message
 * quotes nothing of the line: a file that is not a script may hold anything.
 */
export function parseScript(content: string, name: string): ParsedEntry[] {
  const entries: ParsedEntry[] = [];
  content.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//')) return;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      throw new Error(`${name} line ${index + 1}: not JSON (a script holds one JSON object a line)`);
    }
    const parsed = ScriptEntrySchema.safeParse(json);
    if (!parsed.success) throw invalid(`${name} line ${index + 1}`, parsed.error);
    entries.push(parsed.data);
  });
  return entries;
}

function estimateTokens(characters: number): number {
  return Math.round(characters / 4);
}

/** Pieces a streamed scripted reply comes in: words, at most this many. */
const STREAMED_PIECES = 8;

/** A scripted reply written out in pieces of words, `delayMs` spread over them as a model's time would be. */
async function writeOut(text: string, delayMs: number, onText: TextListener, signal?: AbortSignal): Promise<void> {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const size = Math.max(1, Math.ceil(words.length / STREAMED_PIECES));
  const pieces: string[] = [];
  for (let index = 0; index < words.length; index += size) pieces.push(words.slice(index, index + size).join(''));
  const pause = delayMs / (pieces.length + 1);
  for (const piece of pieces) {
    if (pause > 0) await sleep(pause, undefined, { signal });
    onText(piece);
  }
  if (pause > 0) await sleep(pause, undefined, { signal });
}

/** A request as the scripted model records it: tool use flattened to text, the offered tools by name. */
export type ScriptedRequest = Omit<ProviderRequest, 'tools'> & { tools: string[] };

/** Replays scripted responses in order, records every request, and fails loudly when it runs out. */
export class ScriptedProvider implements ModelProvider {
  readonly spec: string;
  /** Every request received, in order, including ones answered with an error or exhaustion; tools by name. */
  readonly requests: ScriptedRequest[] = [];
  private readonly entries: ParsedEntry[];
  private readonly matchers: ParsedEntry[];
  private cursor = 0;

  constructor(
    entries: readonly ScriptEntry[],
    private readonly name = 'inline script',
  ) {
    this.spec = `scripted:${name}`;
    const parsed = entries.map((entry, index) => {
      const result = ScriptEntrySchema.safeParse(entry);
      if (!result.success) throw invalid(`${name} entry ${index + 1}`, result.error);
      return result.data;
    });
    this.entries = parsed.filter((entry) => !entry.match);
    this.matchers = parsed.filter((entry) => entry.match);
  }

  /** Loads a JSONL script, one entry a line. */
  static fromFile(file: string): ScriptedProvider {
    const resolved = path.resolve(file);
    return new ScriptedProvider(parseScript(fs.readFileSync(resolved, 'utf-8'), resolved), resolved);
  }

  /** How many entries have not been replayed yet. */
  get remaining(): number {
    return this.entries.length - this.cursor;
  }

  async complete(given: ProviderRequest, signal?: AbortSignal, onText?: TextListener): Promise<ModelResponse> {
    // A script reads text, as a model on the JSON text protocol does: tool use becomes the turn's results block.
    const request = { ...given, messages: flattenToolUse(given.messages) };
    this.requests.push(structuredClone({ ...request, tools: request.tools.map((tool) => tool.name) }));
    const asked = request.messages.map((message) => message.content).join('\n');
    const matched = this.matchers.find((entry) => entry.match?.every((part) => asked.includes(part)));
    const entry = matched ?? this.entries[this.cursor];
    if (!entry) {
      throw ApplicationFailure.nonRetryable(
        `scripted model ${this.name} ran out of responses: it had ${this.entries.length} entries and got request ${this.requests.length}`,
        ModelError.ScriptExhausted,
      );
    }
    if (!matched) this.cursor++;
    const callNumber = this.requests.length;
    const text = entry.text ?? '';
    if (onText) await writeOut(text, entry.delayMs ?? 0, onText, signal);
    else if (entry.delayMs) await sleep(entry.delayMs, undefined, { signal });
    if (entry.error) {
      const { type, message, nonRetryable, nextRetryDelayMs } = entry.error;
      throw ApplicationFailure.create({ type, message, nonRetryable, nextRetryDelay: nextRetryDelayMs });
    }
    const scripted = [...(entry.tool ? [{ tool: entry.tool, args: entry.args ?? {} }] : []), ...(entry.calls ?? [])];
    const toolCalls = scripted.map((call, index) => ({
      id: index === 0 ? `call_${callNumber}` : `call_${callNumber}_${index + 1}`,
      name: call.tool,
      input: call.args,
    }));
    const requestChars = systemPrompt(request.system).length + messagesChars(request.messages);
    const replyChars =
      text.length + toolCalls.reduce((sum, call) => sum + JSON.stringify(call.input).length + call.name.length, 0);
    const usage: Usage = {
      inputTokens: estimateTokens(requestChars),
      outputTokens: estimateTokens(replyChars),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      ...entry.usage,
    };
    return { text, toolCalls, stopReason: toolCalls.length > 0 ? 'tool_use' : 'end_turn', usage, model: this.spec };
  }
}
