import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import { redisClass } from '../common/redis-class';
import { DIRECTIVE_LIMITS } from '../core/research/limits';
import { researchWorkflowId } from '../common/ids';
import { researchDirectiveSignal } from '../common/messages/research';

const CHANNELS = 'scratchpad:*:directives';
// A run id as research runs spell it (core/research/run.ts): anything else names no run.
const CHANNEL = /^scratchpad:([A-Za-z0-9][A-Za-z0-9._-]{0,127}):directives$/;
/** Longest message read at all: JSON around a directive of the longest text, escaped, with an author and an id. */
const MAX_MESSAGE_CHARS = DIRECTIVE_LIMITS.text * 6 + 1024;
/** How long a message's claim holds: a copy that reaches another bridge later than this is forwarded again. */
const CLAIM_SECONDS = { publisherId: 24 * 3600, content: 60 } as const;

/*
 * One publish reaches every bridge (every worker runs one), and pub/sub gives a message no id. So a bridge forwards
 * a message only if it claims it first: `SET NX` on a key derived from the message. A message that carries its own
 * `id` is claimed by that id for a day; a plain one by its content for a minute, so the same text published twice
 * within a minute counts once (it would steer the run no further). In the same script, the run's count for this
 * minute goes up: past the limit the message is dropped, whichever bridge holds it.
 */
const CLAIM = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('EXPIRE', KEYS[2], 120) end
if count > tonumber(ARGV[2]) then return -1 end
return 1`;

/** A running bridge; `close` unsubscribes. */
export interface DirectiveBridge {
  close(): Promise<void>;
  /** Directives forwarded so far. */
  readonly forwarded: number;
  /** Messages this bridge dropped so far: malformed, oversize, over the rate, or not delivered to their run. */
  readonly dropped: number;
}

/** A message read as the directive it forwards, with the id the run dedupes it by and the key its claim takes. */
export interface BridgedDirective {
  runId: string;
  directive: { text: string; by?: string; id: string };
  claimKey: string;
  claimSeconds: number;
}

function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 40);
}

/**
 * A message on `channel` (plain text, or JSON `{text, by?, id?}`) read as a directive for its run, or the reason it
 * is not one. `now` (ms) names the minute a plain message is claimed in, so the run's id for it differs from the
 * same text's a minute later.
 */
export function readMessage(channel: string, message: string, now: number): BridgedDirective | string {
  const runId = CHANNEL.exec(channel)?.[1];
  if (!runId) return `${channel.slice(0, 200)} names no research run`;
  if (message.length > MAX_MESSAGE_CHARS) return `a message of ${message.length} characters is too long`;
  let text = message;
  let by: string | undefined;
  let publisherId: string | undefined;
  try {
    const parsed = JSON.parse(message) as { text?: unknown; by?: unknown; id?: unknown };
    if (parsed && typeof parsed.text === 'string') {
      text = parsed.text;
      by = typeof parsed.by === 'string' ? parsed.by.slice(0, 200) : undefined;
      if (typeof parsed.id === 'string' && parsed.id.length > 0 && parsed.id.length <= DIRECTIVE_LIMITS.id) {
        publisherId = parsed.id;
      }
    }
  } catch {
    // Plain text.
  }
  text = text.trim();
  if (text === '') return 'an empty directive';
  if (text.length > DIRECTIVE_LIMITS.text) {
    return `a directive of ${text.length} characters is over the ${DIRECTIVE_LIMITS.text}-character limit`;
  }
  const hash = publisherId !== undefined ? digest(channel, 'id', publisherId) : digest(channel, 'text', message);
  const id = publisherId !== undefined ? `redis:p:${hash}` : `redis:c:${hash}:${Math.floor(now / 60_000)}`;
  return {
    runId,
    directive: { text, ...(by && { by: `redis:${by}` }), id },
    claimKey: `scratchpad:${runId}:directives:claim:${hash}`,
    claimSeconds: publisherId !== undefined ? CLAIM_SECONDS.publisherId : CLAIM_SECONDS.content,
  };
}

/** How long starting a bridge waits for Redis before it returns, subscribing later. */
const SUBSCRIBE_WAIT_MS = 3000;

/**
 * Subscribes each time the connection is (re)made, so a bridge started while Redis is down, or cut off from it,
 * forwards again once Redis is back; a worker never waits on Redis for longer than {@link SUBSCRIBE_WAIT_MS} to start.
 */
async function subscribeOnEveryConnection(subscriber: Redis, log: (line: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const subscribed = new Promise<void>((resolve) => {
    subscriber.on('ready', () => {
      subscriber.psubscribe(CHANNELS).then(
        () => resolve(),
        (error: Error) => log(`directive bridge: cannot subscribe: ${error.message}`),
      );
    });
  });
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log('directive bridge: Redis does not answer yet; directives are forwarded once it does');
      resolve();
    }, SUBSCRIBE_WAIT_MS);
  });
  await Promise.race([subscribed, waited]);
  clearTimeout(timer);
}

/**
 * Forwards user directives published on `scratchpad:{runId}:directives` to the research supervisor as `directive`
 * signals: readers of the Redis mirror can steer a run without a Temporal client. Every worker may run one: each
 * message is forwarded once, by the bridge that claims it, at most {@link DIRECTIVE_LIMITS.perMinute} a minute per
 * run; the run checks both again.
 */
export async function startDirectiveBridge(
  url: string,
  client: Client,
  log = (_line: string) => {},
): Promise<DirectiveBridge> {
  const subscriber = new (redisClass())(url, { maxRetriesPerRequest: 2, autoResubscribe: false });
  // A subscribed connection runs no other command: claims go through their own.
  const claims = new (redisClass())(url, { maxRetriesPerRequest: 2 });
  for (const connection of [subscriber, claims]) {
    connection.on('error', (error: Error) => log(`directive bridge: ${error.message}`));
  }
  let forwarded = 0;
  let dropped = 0;
  const drop = (reason: string) => {
    dropped += 1;
    // A flood is one line, then one per hundred.
    if (dropped === 1 || dropped % 100 === 0) log(`directive bridge: dropped ${reason} (${dropped} dropped so far)`);
  };
  const forward = async (channel: string, message: string): Promise<void> => {
    const read = readMessage(channel, message, Date.now());
    if (typeof read === 'string') return drop(read);
    const rateKey = `scratchpad:${read.runId}:directives:rate:${Math.floor(Date.now() / 60_000)}`;
    const claim = await claims.eval(CLAIM, 2, read.claimKey, rateKey, read.claimSeconds, DIRECTIVE_LIMITS.perMinute);
    if (claim === 0) return; // Another bridge forwards it.
    if (claim !== 1) return drop(`a directive to ${read.runId}: over ${DIRECTIVE_LIMITS.perMinute} a minute`);
    const { directive } = read;
    await client.workflow.getHandle(researchWorkflowId(read.runId)).signal(researchDirectiveSignal, directive);
    forwarded += 1;
  };
  subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
    forward(channel, message).catch((error: Error) => drop(`a directive on ${channel}: ${error.message}`));
  });
  await subscribeOnEveryConnection(subscriber, log);
  return {
    get forwarded() {
      return forwarded;
    },
    get dropped() {
      return dropped;
    },
    close: async () => {
      // A connection that never reached Redis has nothing to quit: it just stops trying.
      await Promise.all(
        [subscriber, claims].map((connection) =>
          connection.status === 'ready'
            ? connection.quit().catch(() => connection.disconnect())
            : connection.disconnect(),
        ),
      );
    },
  };
}
