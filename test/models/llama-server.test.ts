import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createModelResolver } from '../../src/activities/model/registry';
import { Agents } from '../../src/clients/agents';
import { defaultScratchpad, memoryChanged } from '../../src/core/scratchpad/scratchpad';
import type { LlamaServer } from '../../src/dev-server/llama-server';
import { runCli } from '../helpers/cli';
import { CAPS, spec, useLlamaServers } from '../helpers/llama';
import { uniqueTaskQueue, waitFor } from '../helpers/temporal';

/*
 * The memory loop against a real OpenAI-compatible server: llama.cpp's llama-server with SmolLM2-135M-Instruct
 * (test/helpers/llama.ts). The model is tiny and slow on 2 cores: these tests assert protocol and behaviour, never the
 * quality of an answer, and keep caps short. This file: how the worker finds the protocol, a chat turn on each server
 * (the model's own chat template, with no tool calling, and one that has it), a forced call the model never makes, a
 * prompt over the context window, a cancelled turn. The task loop, the longest test, runs beside it in
 * llama-task-loop.test.ts.
 */

// The tiny model is quick, but two cores are shared with the rest of the suite.
jest.setTimeout(600_000);

let env: TestWorkflowEnvironment;
let home: string;
let plain: LlamaServer;
let tools: LlamaServer;
let small: LlamaServer;
const { modelWorker, newAgent, cycleResult } = useLlamaServers(
  { plain: { contextSize: 4096 }, tools: { contextSize: 4096, tools: true }, small: { contextSize: 2048 } },
  (setup) =>
    ({
      env,
      home,
      servers: { plain, tools, small },
    } = setup),
);

describe('auto: the worker probes an OpenAI-compatible server once and uses the first way that works', () => {
  it('picks #json on the model’s own template (no tool calling) and #tools on a tool-capable one', async () => {
    const told: string[] = [];
    const resolve = createModelResolver({
      models: [spec(plain), spec(tools)],
      onProtocol: (served, protocol) => told.push(`${served} ${protocol}`),
    });
    const plainProvider = resolve(spec(plain));
    const toolsProvider = resolve(spec(tools));
    expect(await plainProvider.resolveProtocol?.()).toBe('json');
    expect(await toolsProvider.resolveProtocol?.()).toBe('tools');
    // Probed once per worker: asked again, the answer is the cached one.
    expect(await plainProvider.resolveProtocol?.()).toBe('json');
    expect(told).toEqual([`${spec(plain)} json`, `${spec(tools)} tools`]);
  });
});

describe('the memory loop on a server without tool calling (#json by the probe)', () => {
  it('a chat turn replies within its cap, and reflect changes the memory', async () => {
    const lines: string[] = [];
    const { worker, taskQueue } = await modelWorker(spec(plain), lines);
    // One tool: respond is held to `{"reply"}` or a call of it. Reflect's update on one thread took 84 tokens with the
    // Q8_0 model and 265 with the wheel's Q4_1 (which fills most keys): the cap leaves room for either, so that one
    // update without a corrective retry is what counts.
    const caps = { ...CAPS, reflect: 384 };
    const target = { ...newAgent(taskQueue, ['echo']), settings: { maxOutputTokens: caps, tools: ['echo'] } };
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      const answer = await agents.send(target, { message: 'My name is Ada and I live in Lisbon. I like green tea.' });
      expect(answer.outcome).toBe('completed');
      const result = await cycleResult(target.agentId, 1);
      // Constrained decoding gave reflect its update_scratchpad arguments: the memory changed, and no note says not.
      expect(result.memoryUnchanged).toBeUndefined();
      expect(memoryChanged(defaultScratchpad(target.purpose), result.after)).toBe(true);
      expect(result.usage.outputTokens).toBeLessThanOrEqual(caps.respond + caps.reflect);
    });
    expect(lines.join('\n')).toContain('speaks #json');
  });
});

describe('the memory loop on a tool-capable template (#tools by the probe)', () => {
  // This llama.cpp constrains no forced call on this template (the choice is the model's), and the tiny model seldom
  // calls at temperature 0: what must hold is that reflect either changed the memory or said why not.
  it('reflect asks with native tools, and a turn either changes the memory or says why not', async () => {
    const lines: string[] = [];
    const { worker, taskQueue } = await modelWorker(spec(tools), lines);
    const target = newAgent(taskQueue);
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      await agents.send(target, { message: 'Remember: my favourite colour is blue.' });
      const result = await cycleResult(target.agentId, 1);
      const changed = memoryChanged(defaultScratchpad(target.purpose), result.after);
      expect(changed).toBe(result.memoryUnchanged === undefined);
      if (!changed) expect(result.after.notes).toContain(`[REFLECT] no update: ${result.memoryUnchanged}`);
    });
    expect(lines.join('\n')).toContain('speaks #tools: llama.cpp /props declares tool calling');
  });
});

describe('a forced call that never comes is never silent', () => {
  it('with #text the tiny model writes no call: the note, the status and `send` say so', async () => {
    const taskQueue = uniqueTaskQueue('llama-cli');
    const place = { home, taskQueue, env: { SCRATCHPAD_MODEL: spec(plain, '#text') } };
    const agentId = `llama-cli-${process.pid}-${Date.now()}`;
    const configured = await runCli(
      ['configure', agentId, '--max-output', 'respond=32,reflect=48', '--tools', 'echo', '--create'],
      place,
    );
    expect(configured.code).toBe(0);
    const sent = await runCli(['send', agentId, 'I live in Porto.'], { ...place, timeoutMs: 300_000 });
    expect(sent.code).toBe(0);
    expect(sent.stderr).toContain('memory not updated this turn: ');
    const status = JSON.parse((await runCli(['status', agentId, '--json'], place)).stdout);
    expect(status.turnsSinceMemoryChanged).toBe(1);
    expect(status.lastNoUpdate).toMatch(/did not call update_scratchpad|rejected|changed nothing/);
    const result = await cycleResult(agentId, 1);
    expect(result.after.notes).toContain('[REFLECT] no update: ');
  });
});

describe('the context window', () => {
  it('a prompt over a small server’s context is archived down and asked again, with a note', async () => {
    const { worker, taskQueue } = await modelWorker(spec(small, '#json'));
    const target = newAgent(taskQueue);
    const agents = new Agents(env.client);
    // Within the agent's budget (6,000 rendered characters), yet over a 2,048-token window with the prompts around it.
    const known = Array.from(
      { length: 100 },
      (_, index) => `- fact ${index}: the user's item ${index} is kept in box ${index}`,
    );
    const big = {
      ...defaultScratchpad(target.purpose),
      understanding: { known: known.join('\n'), believed: '', unknown: '' },
    };
    await worker.runUntil(async () => {
      await agents.import(target, big);
      const answer = await agents.send(target, { message: 'Where is item 3?' });
      expect(answer.outcome).toBe('completed');
      const result = await cycleResult(target.agentId, 1);
      expect(result.outcome).toBe('completed');
      expect(result.after.notes).toContain("[CONTEXT] the prompt did not fit the model's context window: archived");
      expect(result.archived?.length).toBeGreaterThan(0);
    });
  });
});

describe('cancelling a turn', () => {
  /** Whether the server's one slot is generating now. */
  async function generating(server: LlamaServer): Promise<boolean> {
    const slots = (await (await fetch(`${server.baseURL.replace(/\/v1$/, '')}/slots`)).json()) as {
      is_processing: boolean;
    }[];
    return slots.some((slot) => slot.is_processing);
  }

  it('stops the server generating within seconds, not at the output cap', async () => {
    const { worker, taskQueue } = await modelWorker(spec(plain, '#text'));
    const target = { ...newAgent(taskQueue), settings: { maxOutputTokens: { respond: 8000, reflect: 64, task: 64 } } };
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      const sent = agents.send(target, { message: 'Write a very long story about a dragon.' }).catch((error) => error);
      const running = async () => (await agents.status(target.agentId)).running?.cycleId;
      const cycleId = await waitFor(running, (id) => id !== undefined, { timeoutMs: 120_000 });
      await waitFor(
        () => generating(plain),
        (busy) => busy,
        { timeoutMs: 120_000 },
      );
      await agents.cancelCycle(target, cycleId!);
      const cancelled = Date.now();
      // At 8,000 tokens the reply would go on for minutes; the heartbeat delivers the cancellation within a second or
      // two, and the closed stream stops the slot.
      await waitFor(
        () => generating(plain),
        (busy) => !busy,
        { timeoutMs: 20_000 },
      );
      const stopped = Date.now() - cancelled;
      expect(stopped).toBeLessThan(20_000);
      expect(await sent).toMatchObject({ outcome: 'cancelled' });
    });
  });
});
