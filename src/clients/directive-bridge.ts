import type { Client } from '@temporalio/client';
import Redis from 'ioredis';
import { researchWorkflowId } from '../common/ids';
import { researchDirectiveSignal } from '../common/messages/research';

const CHANNELS = 'scratchpad:*:directives';
const CHANNEL = /^scratchpad:([^:]+):directives$/;

/** A running bridge; `close` unsubscribes. */
export interface DirectiveBridge {
  close(): Promise<void>;
  /** Directives forwarded so far. */
  readonly forwarded: number;
}

/**
 * Forwards user directives published on `scratchpad:{runId}:directives` (plain text, or JSON `{text, by}`) to the
 * research supervisor as `directive` signals: readers of the Redis mirror can steer a run without a Temporal client.
 */
export async function startDirectiveBridge(
  url: string,
  client: Client,
  log = (_line: string) => {},
): Promise<DirectiveBridge> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  redis.on('error', (error) => log(`directive bridge: ${error.message}`));
  let forwarded = 0;
  redis.on('pmessage', (_pattern: string, channel: string, message: string) => {
    const runId = CHANNEL.exec(channel)?.[1];
    if (!runId) return;
    const directive = parseDirective(message);
    if (!directive) return log(`directive bridge: ignored an empty or oversize message on ${channel}`);
    client.workflow
      .getHandle(researchWorkflowId(runId))
      .signal(researchDirectiveSignal, directive)
      .then(
        () => (forwarded += 1),
        (error: Error) => log(`directive bridge: run ${runId}: ${error.message}`),
      );
  });
  await redis.psubscribe(CHANNELS);
  return {
    get forwarded() {
      return forwarded;
    },
    close: async () => {
      await redis.quit().catch(() => undefined);
    },
  };
}

function parseDirective(message: string): { text: string; by?: string } | undefined {
  let text = message;
  let by: string | undefined;
  try {
    const parsed = JSON.parse(message) as { text?: unknown; by?: unknown };
    if (parsed && typeof parsed.text === 'string') {
      text = parsed.text;
      by = typeof parsed.by === 'string' ? parsed.by.slice(0, 200) : undefined;
    }
  } catch {
    // Plain text.
  }
  text = text.trim();
  if (text === '' || text.length > 2000) return undefined;
  return { text, ...(by && { by: `redis:${by}` }) };
}
