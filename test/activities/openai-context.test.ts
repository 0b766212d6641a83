import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { OpenAICompatibleProvider } from '../../src/activities/model/openai';
import { offeredTools } from '../../src/activities/model/offered-tools';
import type { ProviderRequest } from '../../src/activities/model/provider';
import { serverInfo } from '../../src/activities/model/server-info';
import { ModelError } from '../../src/common/failure-types';

/*
 * What a server says about itself, and the context window it implies. A stand-in here: a real llama.cpp server's
 * /props is read in test/models/llama-server.test.ts; vLLM's and Ollama's answers, and a refusal on demand, are not
 * on this machine.
 */

type Route = (body: unknown) => { status?: number; body: unknown } | undefined;

interface Server {
  url: string;
  chats: Record<string, unknown>[];
  close(): Promise<void>;
}

async function serve(routes: Record<string, Route>): Promise<Server> {
  const chats: Record<string, unknown>[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const body: unknown = text ? JSON.parse(text) : undefined;
      const path = request.url ?? '';
      if (path.endsWith('/chat/completions')) chats.push(body as Record<string, unknown>);
      const answer = routes[path]?.(body) ?? { status: 404, body: {} };
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const completion = (content: string) => ({
  body: {
    id: 'c',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  },
});

const ask = (content: string, maxTokens = 1024): ProviderRequest => ({
  system: 'respond',
  messages: [{ role: 'user', content }],
  tools: offeredTools([]),
  toolChoice: 'auto',
  maxTokens,
});

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (error) {
    return error as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

describe('what a server says about itself', () => {
  it('vLLM: max_model_len of the model served', async () => {
    const server = await serve({
      '/v1/models': () => ({
        body: {
          data: [
            { id: 'other', max_model_len: 1 },
            { id: 'qwen', max_model_len: 32768 },
          ],
        },
      }),
    });
    expect(await serverInfo(`${server.url}/v1`, 'qwen')).toEqual({ contextTokens: 32768, source: 'vLLM /v1/models' });
    await server.close();
  });

  it('Ollama: the architecture’s context length and whether the model takes tools', async () => {
    const server = await serve({
      '/api/show': (body) =>
        (body as { model?: string }).model === 'qwen2.5:7b'
          ? { body: { model_info: { 'qwen2.context_length': 32768 }, capabilities: ['completion', 'tools'] } }
          : { status: 404, body: {} },
    });
    expect(await serverInfo(`${server.url}/v1`, 'qwen2.5:7b')).toEqual({
      contextTokens: 32768,
      toolCalls: true,
      source: 'Ollama /api/show',
    });
    await server.close();
  });

  it('a hosted API says nothing, and an unreachable one is no failure', async () => {
    const server = await serve({});
    expect(await serverInfo(`${server.url}/v1`, 'm')).toEqual({});
    await server.close();
    expect(await serverInfo('http://127.0.0.1:9/v1', 'm')).toEqual({});
  });
});

describe('the context window', () => {
  it('lowers the output cap to what the prompt leaves, and refuses a prompt that leaves nothing', async () => {
    const server = await serve({ '/v1/chat/completions': () => completion('ok') });
    const provider = new OpenAICompatibleProvider({
      model: 'm',
      baseURL: `${server.url}/v1`,
      protocol: 'text',
      contextTokens: 1000,
    });
    await provider.complete(ask('short'));
    const capped = server.chats[0]?.max_tokens as number;
    expect(capped).toBeLessThan(1000);
    expect(capped).toBeGreaterThan(500);
    const failure = await failureOf(provider.complete(ask('x'.repeat(4000))));
    expect(failure.type).toBe(ModelError.ContextExceeded);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/does not fit its 1000-token context/);
    // Refused before it was sent.
    expect(server.chats).toHaveLength(1);
    await server.close();
  });

  it('a server’s own refusal of a long prompt is ModelError.ContextExceeded', async () => {
    const refusal = {
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'request (6031 tokens) exceeds the available context size (4096 tokens), try increasing it',
          type: 'exceed_context_size_error',
        },
      },
    };
    const server = await serve({ '/v1/chat/completions': () => refusal });
    const provider = new OpenAICompatibleProvider({ model: 'm', baseURL: `${server.url}/v1`, protocol: 'text' });
    const failure = await failureOf(provider.complete(ask('long')));
    expect(failure.type).toBe(ModelError.ContextExceeded);
    expect(failure.message).toContain('exceeds the available context size');
    await server.close();
  });
});
