import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SYSTEM_PROMPTS } from '../src/activities/model/system-prompts';
import { type CacheUsage, type CacheableRequest, PromptCache } from './cost-cache';
import type { ScriptedTurn } from './context-script';

/** Which call of a turn a request is: the project's respond, reflect or single-phase respond, or the anchor's. */
export type Phase = 'respond' | 'reflect' | 'single' | 'transcript';

/** One request as the stand-in billed it. */
export interface BilledCall {
  /** The API key it came with: each arm has its own, and so its own cache, as an organization would. */
  account: string;
  /** 1-based. */
  turn: number;
  phase: Phase;
  model: string;
  usage: CacheUsage;
  /** `usage.weightedTokens` at the model's price, in tokens of the main model's uncached input. */
  cost: number;
  /** The tools the request offered, as sent. */
  tools: Record<string, unknown>[];
}

/** What the stand-in answers and how it keeps time. */
export interface StandInOptions {
  turns: readonly ScriptedTurn[];
  /** Simulated seconds between turns: the clock a cached prefix's lifetime runs on. */
  gapSeconds: number;
  /** A model's input price relative to the main model's. */
  priceOf: (model: string) => number;
}

type Body = CacheableRequest & { system: { text: string }[] };
type Content = string | { type: string; text?: string }[];

function textOf(content: Content): string {
  return typeof content === 'string' ? content : content.map((block) => block.text ?? '').join('');
}

/** The account the anchor, a transcript loop, sends its calls with. */
export const TRANSCRIPT_ACCOUNT = 'transcript';

function phaseOf(system: string, account: string): Phase {
  if (system === SYSTEM_PROMPTS.reflect) return 'reflect';
  if (system === SYSTEM_PROMPTS.respond_single) return 'single';
  if (system === SYSTEM_PROMPTS.respond) return account === TRANSCRIPT_ACCOUNT ? 'transcript' : 'respond';
  throw new Error('stand-in: a request with a system prompt this benchmark does not send');
}

/** The turn's input: the last user text of a respond call, the exchange's USER line of a reflect call. */
function inputOf(body: Body, phase: Phase): string {
  const last = textOf(body.messages.at(-1)?.content as Content);
  if (phase !== 'reflect') return last;
  return /<exchange>\nUSER: ([\s\S]*?)\nASSISTANT: /.exec(last)?.[1] ?? '';
}

function reply(body: Body, phase: Phase, turn: ScriptedTurn, usage: CacheUsage) {
  const update = {
    understanding_known: `APPEND: ${turn.known}`,
    workspace: `APPEND: ${turn.workspace}`,
    trajectory_now: turn.now,
  };
  const call = { type: 'tool_use', id: `toolu_${turn.now.length}`, name: 'update_scratchpad', input: update };
  const content =
    phase === 'reflect'
      ? [call]
      : [{ type: 'text', text: turn.reply, citations: null }, ...(phase === 'single' ? [call] : [])];
  return {
    id: 'msg_stand_in',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: phase === 'respond' || phase === 'transcript' ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: Math.round(usage.inputTokens),
      output_tokens: Math.round(JSON.stringify(content).length / 4),
      cache_creation_input_tokens: Math.round(usage.cacheWriteTokens),
      cache_read_input_tokens: Math.round(usage.cacheReadTokens),
    },
  };
}

/**
 * A loopback stand-in of the Messages API (`POST /v1/messages`) that the real `@anthropic-ai/sdk` talks to: it
 * answers each call of the scripted conversation (the turn found by its input, so a reflect that runs after the reply
 * is still billed to its turn) and bills it under the provider's caching rules (cost-cache.ts), on a clock that
 * advances `gapSeconds` per turn.
 */
export class MessagesStandIn {
  readonly calls: BilledCall[] = [];
  private readonly caches = new Map<string, PromptCache>();
  private readonly turnOf = new Map<string, number>();

  private constructor(
    private readonly options: StandInOptions,
    private readonly server: http.Server,
    readonly url: string,
  ) {
    options.turns.forEach((turn, index) => this.turnOf.set(turn.input, index));
    if (this.turnOf.size !== options.turns.length) throw new Error('stand-in: two turns have the same input');
  }

  static async start(options: StandInOptions): Promise<MessagesStandIn> {
    const started: { standIn?: MessagesStandIn } = {};
    const server = http.createServer((request, response) => started.standIn?.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return (started.standIn = new MessagesStandIn(options, server, url));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let status = 200;
      let answer: unknown;
      try {
        // The SDK sends its key as a bearer token (older versions as x-api-key).
        const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        const account = bearer ?? String(request.headers['x-api-key'] ?? '');
        answer = this.bill(account, JSON.parse(Buffer.concat(chunks).toString('utf-8')) as Body);
      } catch (error) {
        status = 400;
        const message = error instanceof Error ? error.message : String(error);
        answer = { type: 'error', error: { type: 'invalid_request_error', message } };
      }
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  }

  private bill(account: string, body: Body) {
    const phase = phaseOf(body.system.map((block) => block.text).join(''), account);
    const index = this.turnOf.get(inputOf(body, phase));
    if (index === undefined) throw new Error(`stand-in: a ${phase} call for no turn of the script`);
    let cache = this.caches.get(account);
    if (!cache) this.caches.set(account, (cache = new PromptCache()));
    // Reflect follows respond within the turn; a few seconds do not change what is live.
    const now = index * this.options.gapSeconds + (phase === 'reflect' ? 5 : 0);
    const usage = cache.account(body, now);
    const cost = usage.weightedTokens * this.options.priceOf(body.model);
    const tools = [...(body.tools ?? [])];
    this.calls.push({ account, turn: index + 1, phase, model: body.model, usage, cost, tools });
    return reply(body, phase, this.options.turns[index]!, usage);
  }
}
