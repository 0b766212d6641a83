import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Agents } from '../../src/clients/agents';
import type { TurnEvent } from '../../src/clients/turn-stream';
import type { LlamaServer } from '../../src/dev-server/llama-server';
import { BackgroundCli } from '../helpers/cli';
import { CAPS, spec, useLlamaServers } from '../helpers/llama';
import { uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';

/*
 * Streamed replies against a real OpenAI-compatible server that streams: llama.cpp's llama-server with
 * SmolLM2-135M-Instruct (test/helpers/llama.ts). Protocol and behaviour only, never the quality of an answer.
 */

jest.setTimeout(600_000);

let env: TestWorkflowEnvironment;
let home: string;
let plain: LlamaServer;
const { modelWorker, newAgent, cycleResult } = useLlamaServers(
  { plain: { contextSize: 4096 } },
  (setup) =>
    ({
      env,
      home,
      servers: { plain },
    } = setup),
);

/** Whether the server's one slot is generating now. */
async function generating(server: LlamaServer): Promise<boolean> {
  const slots = (await (await fetch(`${server.baseURL.replace(/\/v1$/, '')}/slots`)).json()) as {
    is_processing: boolean;
  }[];
  return slots.some((slot) => slot.is_processing);
}

describe('a reply streamed from llama.cpp', () => {
  it('#json: the decoded reply reaches the reader over time, and history holds exactly the streamed text', async () => {
    const { worker, taskQueue } = await modelWorker(spec(plain, '#json'));
    // Room for a reply long enough to come in several batches.
    const agent = newAgent(taskQueue, ['echo']);
    const target = { ...agent, settings: { ...agent.settings, maxOutputTokens: { ...CAPS, respond: 96 } } };
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      const stream = agents.stream(target, { message: 'My name is Ada and I live in Lisbon. I like green tea.' });
      const seen: { event: TurnEvent; at: number }[] = [];
      for await (const event of stream) seen.push({ event, at: Date.now() });
      const texts = seen.filter(({ event }) => event.type === 'text');
      const done = seen.at(-1)!;
      expect(done.event).toMatchObject({ type: 'done' });
      // Not one write at the end: several batches, the first well before the reply ended.
      expect(texts.length).toBeGreaterThan(1);
      expect(done.at - texts[0]!.at).toBeGreaterThan(200);
      const streamed = texts.map(({ event }) => (event as { text: string }).text).join('');
      expect(streamed).not.toContain('{"reply"');
      const result = await cycleResult(target.agentId, 1);
      expect(result.reply).toBe(streamed);
      expect((done.event as { reply: string }).reply).toBe(streamed);
    });
  });

  it('Ctrl-C in `scratchpad send` mid-reply cancels the turn and the server stops generating', async () => {
    const place = {
      home,
      taskQueue: uniqueTaskQueue('llama-stream-cli'),
      env: { SCRATCHPAD_MODEL: spec(plain, '#text') },
    };
    const agentId = uniqueId('llama-stream-cli');
    const configured = BackgroundCli.start(
      ['configure', agentId, '--max-output', 'respond=8000,reflect=48', '--create'],
      place,
    );
    expect(await configured.exitCode()).toBe(0);
    const send = BackgroundCli.start(['send', agentId, 'Write a very long story about a dragon.'], place);
    await waitFor(() => send.stdout.trim().length > 0 || !send.alive, { timeoutMs: 300_000, what: 'the first words' });
    expect(await generating(plain)).toBe(true);
    send.interrupt();
    const interrupted = Date.now();
    await waitFor(
      () => generating(plain),
      (busy) => !busy,
      { timeoutMs: 20_000, what: 'the slot to stop' },
    );
    expect(Date.now() - interrupted).toBeLessThan(20_000);
    expect(await send.exitCode()).toBe(3);
    expect(send.stderr).toMatch(/cycle agent\/.*\/cycle\/1: cancelled/);
  });
});
