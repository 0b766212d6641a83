import { createHash } from 'node:crypto';

/**
 * Anthropic's prompt caching as its documentation states the rules, applied to a Messages API request body: the
 * prompt is tools, then system, then messages, each a run of blocks; a breakpoint (`cache_control`) writes the prefix
 * ending at its block; a request reads the longest previously written prefix that ends at one of its block boundaries
 * at or up to 20 blocks before one of its breakpoints, if that entry's lifetime has not run out (a read refreshes it);
 * a prefix under the minimum length is not cached; changing `tool_choice` (or the model) misses every prefix that
 * reaches the messages. Reads cost 0.1× the input price, writes 1.25× (5 minutes) or 2× (1 hour).
 */
export const CACHE_RULES = {
  minTokens: 1024,
  lookbackBlocks: 20,
  readRate: 0.1,
  writeRate: { '5m': 1.25, '1h': 2 },
  ttlSeconds: { '5m': 300, '1h': 3600 },
} as const;

/** Tokens estimated from characters, the same way for every arm. */
export const CHARS_PER_TOKEN = 4;

type Ttl = keyof typeof CACHE_RULES.ttlSeconds;

/** The parts of a Messages API request the cache looks at. */
export interface CacheableRequest {
  model: string;
  tools?: readonly Record<string, unknown>[];
  tool_choice?: unknown;
  system?: string | readonly Record<string, unknown>[];
  messages: readonly { role: string; content: string | readonly Record<string, unknown>[] }[];
}

/** One request's input, split as the provider bills it, in estimated tokens. */
export interface CacheUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Input tokens weighted by their rate (read 0.1×, write 1.25× or 2×), in units of uncached input tokens. */
  weightedTokens: number;
}

interface Block {
  /** What identifies the block in a prefix: its kind, role and content, without its cache mark. */
  identity: string;
  chars: number;
  ttl?: Ttl;
}

function ttlOf(block: Record<string, unknown>): Ttl | undefined {
  const control = block.cache_control as { ttl?: string } | null | undefined;
  if (!control) return undefined;
  return control.ttl === '1h' ? '1h' : '5m';
}

function withoutMark(block: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _mark, ...rest } = block;
  return rest;
}

/** Characters the model reads in a block: text, a tool's definition, a call's name and arguments, a result. */
function charsOf(block: Record<string, unknown>): number {
  if (typeof block.text === 'string') return block.text.length;
  if (block.type === 'tool_use') return String(block.name).length + JSON.stringify(block.input ?? {}).length;
  if (block.type === 'tool_result') {
    const content = block.content;
    if (typeof content === 'string') return content.length;
    return Array.isArray(content) ? content.reduce((sum: number, part) => sum + charsOf(part), 0) : 0;
  }
  return JSON.stringify(withoutMark(block)).length;
}

function block(kind: string, value: Record<string, unknown>): Block {
  return { identity: `${kind}:${JSON.stringify(withoutMark(value))}`, chars: charsOf(value), ttl: ttlOf(value) };
}

/** The request as the run of blocks its prefixes are made of, in order: tools, system, messages. */
export function promptBlocks(request: CacheableRequest): Block[] {
  const system = typeof request.system === 'string' ? [{ type: 'text', text: request.system }] : (request.system ?? []);
  const blocks = [
    ...(request.tools ?? []).map((tool) => block('tool', tool)),
    ...system.map((part) => block('system', part)),
  ];
  // A different tool_choice misses every prefix that reaches the messages.
  const choice = JSON.stringify(request.tool_choice ?? null);
  request.messages.forEach((message, index) => {
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    parts.forEach((part, at) =>
      blocks.push(block(`${index === 0 && at === 0 ? `choice ${choice} ` : ''}${message.role}#${index}`, part)),
    );
  });
  return blocks;
}

/** One account's cache (Anthropic caches per organization) on a clock of its own, in seconds. */
export class PromptCache {
  private readonly entries = new Map<string, { expiresAt: number; ttl: Ttl }>();

  /** Bills `request` sent at `now` (seconds), writing and refreshing entries as the provider would. */
  account(request: CacheableRequest, now: number): CacheUsage {
    const blocks = promptBlocks(request);
    const keys: string[] = [];
    const ends: number[] = [];
    let hash = createHash('sha256').update(request.model).digest('hex');
    let chars = 0;
    for (const entry of blocks) {
      hash = createHash('sha256').update(hash).update('\u0000').update(entry.identity).digest('hex');
      chars += entry.chars;
      keys.push(hash);
      ends.push(chars / CHARS_PER_TOKEN);
    }
    const total = chars / CHARS_PER_TOKEN;
    const breakpoints = blocks.flatMap((entry, index) => (entry.ttl ? [index] : []));
    let hit = -1;
    for (const point of breakpoints) {
      for (let index = point; index >= 0 && index >= point - CACHE_RULES.lookbackBlocks; index--) {
        const cached = this.entries.get(keys[index]!);
        if (cached && cached.expiresAt >= now && index > hit) hit = index;
      }
    }
    // A read refreshes the entry it hit, and the shorter ones this request's breakpoints read through.
    for (const index of [hit, ...breakpoints.filter((point) => point < hit)]) {
      const cached = index >= 0 ? this.entries.get(keys[index]!) : undefined;
      if (cached && cached.expiresAt >= now) cached.expiresAt = now + CACHE_RULES.ttlSeconds[cached.ttl];
    }
    const read = hit >= 0 ? ends[hit]! : 0;
    let written = read;
    let weightedWrite = 0;
    for (const point of breakpoints) {
      if (point <= hit || ends[point]! < CACHE_RULES.minTokens) continue;
      const ttl = blocks[point]!.ttl!;
      this.entries.set(keys[point]!, { expiresAt: now + CACHE_RULES.ttlSeconds[ttl], ttl });
      weightedWrite += (ends[point]! - written) * CACHE_RULES.writeRate[ttl];
      written = ends[point]!;
    }
    const input = total - written;
    return {
      inputTokens: input,
      cacheReadTokens: read,
      cacheWriteTokens: written - read,
      weightedTokens: input + read * CACHE_RULES.readRate + weightedWrite,
    };
  }
}
