import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Agents, Approvals } from 'durable-scratchpad';
import { ScriptedProvider, type TestServer, startTestServer } from 'durable-scratchpad/testing';
import { approveAll, chat, runTasks, stagedTask, streamChat } from '../../examples/client';
import { testServerAddress, waitFor } from '../helpers/temporal';

// The README's and docs/client.md's client examples (examples/client.ts), run as a user runs them: the package by
// name, a server and a scripted worker from durable-scratchpad/testing. The server is the one jest's global setup
// started, given by address; a test of startTestServer's own dev server is at the end.
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ address: testServerAddress() });
});

afterAll(async () => {
  await server?.stop();
});

const agentId = (name: string) => `example-${name}-${randomUUID().slice(0, 8)}`;

describe('examples/client.ts', () => {
  it('chat: the reply, then the memory reflect left once waitForCycle says the cycle is adopted', async () => {
    // Reflect takes its time: a read right after `send` would still see the memory before the turn.
    const model = new ScriptedProvider([
      { text: 'Hello, Ada.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada', trajectory_now: 'Greeted Ada' }, delayMs: 1500 },
    ]);
    const result = await server.runWorker({ model }, async (taskQueue) => {
      const target = { agentId: agentId('chat'), taskQueue };
      const turn = await chat(server.client, target, 'Hello! My name is Ada.');
      return { ...turn, cycles: await new Agents(server.client).cycles(target.agentId) };
    });
    expect(result.reply).toBe('Hello, Ada.');
    expect(result.memory.identity.user).toBe('Ada');
    expect(result.memory.trajectory.now).toBe('Greeted Ada');
    expect(result.cycles.map((cycle) => cycle.cycleId)).toEqual([result.cycleId]);
    expect(model.requests).toHaveLength(2);
  });

  it('streamChat: the reply in pieces as it is written, then what send would have answered', async () => {
    const model = new ScriptedProvider([
      { text: 'Lisbon is the capital of Portugal, on the Tagus.', delayMs: 1000 },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Talked about Lisbon' } },
    ]);
    const pieces: string[] = [];
    const result = await server.runWorker({ model }, (taskQueue) =>
      streamChat(server.client, { agentId: agentId('stream'), taskQueue }, 'Lisbon?', (text) => pieces.push(text)),
    );
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('Lisbon is the capital of Portugal, on the Tagus.');
    expect(result).toMatchObject({ reply: pieces.join(''), outcome: 'completed' });
  });

  it('runTasks and approveAll: a call under approval waits for the decision, then the task completes', async () => {
    const model = new ScriptedProvider([
      { tool: 'echo', args: { message: 'checked' } },
      { tool: 'done', args: { summary: 'Checked the order' } },
    ]);
    const result = await server.runWorker({ model }, async (taskQueue) => {
      const target = { agentId: agentId('tasks'), taskQueue, settings: { approve: ['echo'] } };
      const running = runTasks(server.client, target, ['Check the order']);
      const approvals = new Approvals(server.client);
      await waitFor(async () => (await approvals.list(target.agentId)).length > 0, {
        intervalMs: 200,
        what: 'a call to wait for approval',
      });
      const decisions = await approveAll(server.client, target.agentId, 'ada');
      return { decisions, ...(await running) };
    });
    expect(result.decisions).toEqual([expect.objectContaining({ tool: 'echo', decision: 'approve', by: 'ada' })]);
    expect(result.cycle.outcome).toBe('completed');
    expect(result.cycleCount).toBe(1);
    expect(result.completed).toEqual([{ task: 'Check the order', summary: 'Checked the order' }]);
  });

  it('stagedTask: the stage writes the file and the verification command passes', async () => {
    const model = new ScriptedProvider([
      { tool: 'fs_write', args: { path: 'notes.txt', content: 'hello\n' } },
      { tool: 'done', args: { summary: 'wrote notes.txt' } },
    ]);
    const result = await server.runWorker({ model }, (taskQueue) =>
      stagedTask(server.client, taskQueue, agentId('staged')),
    );
    expect(result.outcome).toBe('verified');
    expect(result.verifications.at(-1)).toMatchObject({ command: 'cat notes.txt', exitCode: 0 });
  });
});

describe('docs/client.md', () => {
  it("shows the example's functions as examples/client.ts has them", () => {
    const root = path.resolve(__dirname, '../..');
    const docs = fs.readFileSync(path.join(root, 'docs/client.md'), 'utf8');
    const example = fs.readFileSync(path.join(root, 'examples/client.ts'), 'utf8');
    const shown = [...docs.matchAll(/```ts\n(export async function[^]*?)```/g)].map((match) => match[1]!);
    expect(shown.length).toBe(4);
    for (const code of shown) expect(example).toContain(code);
  });
});

describe('startTestServer', () => {
  it('starts a dev server of its own, serves a worker on it and stops it', async () => {
    const own = await startTestServer({ log: () => undefined });
    try {
      const model = new ScriptedProvider([
        { text: 'Hi.' },
        { tool: 'update_scratchpad', args: { trajectory_now: 'Said hi' } },
      ]);
      const { reply } = await own.runWorker({ model }, (taskQueue) =>
        new Agents(own.client).send({ agentId: agentId('own'), taskQueue }, { message: 'Hi' }),
      );
      expect(reply).toBe('Hi.');
      expect(own.address).not.toBe(testServerAddress());
    } finally {
      await own.stop();
    }
    await expect(new Agents(own.client).describe('anyone')).rejects.toThrow();
  }, 90_000);
});
