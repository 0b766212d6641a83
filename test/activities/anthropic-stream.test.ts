import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { AnthropicProvider } from '../../src/activities/model/anthropic';
import { createModelResolver } from '../../src/activities/model/registry';
import { Agents } from '../../src/clients/agents';
import type { TurnEvent } from '../../src/clients/turn-stream';
import type { CycleResult } from '../../src/core/cycle/input';
import { uniqueId } from '../helpers/temporal';
import { providerWorker, useWorkflowEnvironment } from '../helpers/worker';

/*
 * The Anthropic path of a streamed reply, through the real @anthropic-ai/sdk, against a loopback server that speaks the
 * Messages API's event stream (message_start, content_block_start, content_block_delta, …, message_stop).
 */

const MODEL = 'claude-sonnet-4-6';
const PIECES = ['Lisbon ', 'is the ', 'capital ', 'of Portugal.'];
const USAGE = { input_tokens: 210, cache_read_input_tokens: 150, cache_creation_input_tokens: 20 };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

interface Messages {
  url: string;
  bodies: { stream?: boolean; tools?: unknown[] }[];
  close(): Promise<void>;
}

const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** A Messages API: a streamed request gets the pieces one by one, `gapMs` apart; any other gets an update call. */
async function messagesApi(gapMs: number): Promise<Messages> {
  const bodies: Messages['bodies'] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', async () => {
      const body = JSON.parse(text);
      bodies.push(body);
      if (!body.stream) {
        // Reflect: a forced update_scratchpad call, answered whole.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'msg_2',
            type: 'message',
            role: 'assistant',
            model: MODEL,
            content: [{ type: 'tool_use', id: 'tu_1', name: 'update_scratchpad', input: { trajectory_now: 'Lisbon' } }],
            stop_reason: 'tool_use',
            stop_sequence: null,
            usage: { input_tokens: 100, output_tokens: 20 },
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const message = { id: 'msg_1', type: 'message', role: 'assistant', model: MODEL, content: [] };
      response.write(
        sse('message_start', {
          message: { ...message, stop_reason: null, stop_sequence: null, usage: { ...USAGE, output_tokens: 1 } },
        }),
      );
      response.write(sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
      for (const piece of PIECES) {
        await new Promise((resolve) => setTimeout(resolve, gapMs));
        response.write(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }));
      }
      response.write(sse('content_block_stop', { index: 0 }));
      response.write(
        sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }),
      );
      response.end(sse('message_stop', {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const provider = (api: Messages) => new AnthropicProvider({ model: MODEL, apiKey: 'test-key', baseURL: api.url });

describe('a streamed reply from the Anthropic Messages API', () => {
  it('hears each text delta as it comes; the response is the whole message, usage and cache tokens included', async () => {
    const api = await messagesApi(300);
    try {
      const heard: { text: string; at: number }[] = [];
      const request = {
        system: 'respond' as const,
        messages: [{ role: 'user' as const, content: 'Where is Lisbon?' }],
        tools: [],
        toolChoice: 'auto' as const,
        maxTokens: 64,
      };
      const response = await provider(api).complete(request, undefined, (text) => heard.push({ text, at: Date.now() }));
      expect(heard.map(({ text }) => text)).toEqual(PIECES);
      expect(heard.at(-1)!.at - heard[0]!.at).toBeGreaterThanOrEqual(600);
      expect(response).toMatchObject({
        text: PIECES.join(''),
        toolCalls: [],
        stopReason: 'end_turn',
        model: MODEL,
        usage: { inputTokens: 210, outputTokens: 12, cacheReadTokens: 150, cacheWriteTokens: 20 },
      });
      expect(api.bodies[0]).toMatchObject({ stream: true });
    } finally {
      await api.close();
    }
  });

  it('through the agent: the turn streams the deltas, and its reply in history is their concatenation', async () => {
    const api = await messagesApi(150);
    const spec = `anthropic:${MODEL}`;
    const resolveModel = createModelResolver({ defaultSpec: spec, providers: { [spec]: provider(api) } });
    const { worker, taskQueue } = await providerWorker(env, bundle, resolveModel, 'anthropic-stream');
    const agents = new Agents(env.client);
    try {
      await worker.runUntil(async () => {
        const stream = agents.stream({ agentId: uniqueId('anthropic-stream'), taskQueue }, { message: 'Lisbon?' });
        const events: TurnEvent[] = [];
        for await (const event of stream) events.push(event);
        const texts = events.flatMap((event) => (event.type === 'text' ? [event.text] : []));
        expect(texts.length).toBeGreaterThan(1);
        expect(texts.join('')).toBe(PIECES.join(''));
        const { cycleId } = await stream.result;
        const result = (await env.client.workflow.getHandle(cycleId).result()) as CycleResult;
        expect(result.reply).toBe(texts.join(''));
        // Respond streamed; reflect's forced call did not.
        expect(api.bodies.map((body) => body.stream === true)).toEqual([true, false]);
      });
    } finally {
      await api.close();
    }
  });
});
