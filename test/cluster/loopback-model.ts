import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SYSTEM_PROMPTS } from '../../src/activities/model/system-prompts';

/** Where the big observation's marker sits: in the middle, so only a read of the stored content can find it. */
export const MIDDLE_MARKER = 'MIDDLE-MARKER-7f3a';
const BIG_MESSAGE = `${'a'.repeat(3000)} ${MIDDLE_MARKER} ${'b'.repeat(3000)}`;

type Message = { role: string; content: string };

/**
 * An OpenAI-compatible chat-completions server on loopback that every worker process reaches, deciding each reply
 * from the request alone (workers are separate processes, so no shared cursor): models `echo-<ms>` echo once then
 * finish; `big` echoes 6 KB (offloaded to the store), greps the stored copy with scratchpad_read, then finishes;
 * chat prompts get a reply and a reflection.
 */
export class LoopbackModel {
  private server?: http.Server;
  private gate?: Promise<void>;
  private openGate?: () => void;
  /** Requests held at the gate, by model name. */
  readonly waiting: string[] = [];

  /** Listens on the port global setup chose, which the cluster's workers allow (SCRATCHPAD_MODELS). */
  async start(port = Number(process.env.SCRATCHPAD_TEST_MODEL_PORT ?? 0)): Promise<void> {
    this.server = http.createServer((request, response) => {
      // Workers read a server's context window (/props, /v1/models, /api/show) before asking it anything.
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.statusCode = 404;
        response.end();
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        this.reply(JSON.parse(body) as { model: string; messages: Message[] }).then(
          (content) => {
            response.setHeader('content-type', 'application/json');
            response.end(
              JSON.stringify({ choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }] }),
            );
          },
          (error: Error) => {
            response.statusCode = 500;
            response.end(JSON.stringify({ error: { message: error.message } }));
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
  }

  spec(model: string): string {
    return `openai:${model}@http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1#text`;
  }

  /** Holds the `big` model's read decision until {@link release}. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }

  async stop(): Promise<void> {
    this.release();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async reply(body: { model: string; messages: Message[] }): Promise<string> {
    const system = body.messages[0]?.content ?? '';
    const prompt = body.messages
      .slice(1)
      .map((message) => message.content)
      .join('\n');
    if (system.startsWith(SYSTEM_PROMPTS.reflect)) {
      return tool('update_scratchpad', { workspace: 'Talked with the user on the cluster' });
    }
    if (system.startsWith(SYSTEM_PROMPTS.respond) || system.startsWith(SYSTEM_PROMPTS.respond_single)) {
      return 'Hello from the cluster.';
    }
    const delay = /^echo-(\d+)$/.exec(body.model);
    if (delay) {
      await sleep(Number(delay[1]));
      return prompt.includes('[TOOL] echo(') ? tool('done', { summary: 'echoed' }) : tool('echo', { message: 'hi' });
    }
    if (body.model === 'big') {
      const id = /\\?"scratchpad_id\\?":\\?"([0-9a-f]{16})/.exec(prompt)?.[1];
      if (!id) return tool('echo', { message: BIG_MESSAGE });
      if (prompt.includes('[TOOL] scratchpad_read(')) return tool('done', { summary: 'read the stored observation' });
      if (this.gate) {
        this.waiting.push(body.model);
        await this.gate;
      }
      return tool('scratchpad_read', { scratchpad_id: id, mode: 'grep', pattern: MIDDLE_MARKER });
    }
    throw new Error(`loopback model: unknown model ${body.model}`);
  }
}

function tool(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ tool: name, args });
}
