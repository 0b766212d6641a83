import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { Agents } from '../../src/clients/agents';
import { cycleWorkflowId } from '../../src/common/ids';
import { BackgroundCli, runCli } from '../helpers/cli';
import { testEnvironment, uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { bundleWorkflows, scriptedWorker } from '../helpers/worker';

/* `scratchpad send` and `chat` print a reply as the model writes it (design.md, Streaming). */

let env: TestWorkflowEnvironment;
let home: string;

const REPLY = 'Porto sits on the Douro, famous for its bridges, its tiled facades and the wine that bears its name.';
const UPDATE: ScriptEntry = { tool: 'update_scratchpad', args: { trajectory_now: 'Talked about Porto' } };

async function script(name: string, lines: ScriptEntry[]): Promise<string> {
  const file = path.join(home, `${name}-${process.pid}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

function place(model: string, env: Record<string, string> = {}) {
  return { home, taskQueue: uniqueTaskQueue('stream-cli'), env: { SCRATCHPAD_MODEL: model, ...env } };
}

beforeAll(async () => {
  env = await testEnvironment();
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-stream-cli-'));
});

afterAll(async () => {
  await env?.teardown();
});

describe('scratchpad send streams', () => {
  it('prints the reply over time, not at the end, then says what became of the memory', async () => {
    const model = await script('slow', [{ text: REPLY, delayMs: 3_000 }, UPDATE]);
    const send = BackgroundCli.start(['send', uniqueId('stream-send'), 'Tell me about Porto.'], place(model));
    await waitFor(() => send.stdout.startsWith('Porto'), { timeoutMs: 60_000, what: 'the first words' });
    const firstWords = Date.now();
    // Well before the end, only part of the reply is out.
    expect(send.stdout.length).toBeLessThan(REPLY.length);
    expect(await send.exitCode()).toBe(0);
    expect(Date.now() - firstWords).toBeGreaterThan(1_000);
    expect(send.stdout).toBe(`${REPLY}\n`);
    expect(send.stderr).toContain('memory updated: trajectory_now');
  }, 120_000);

  it('--no-stream writes the reply once, at the end', async () => {
    const model = await script('whole', [{ text: REPLY, delayMs: 1_500 }, UPDATE]);
    const send = BackgroundCli.start(['send', uniqueId('stream-whole'), 'Porto?', '--no-stream'], place(model));
    const seen = new Set<string>();
    while (send.alive) {
      seen.add(send.stdout);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await send.exitCode()).toBe(0);
    expect([...seen].filter((text) => text !== '' && text !== `${REPLY}\n`)).toEqual([]);
    expect(send.stdout).toBe(`${REPLY}\n`);
  }, 120_000);

  it('Ctrl-C mid-reply cancels the turn: the model call ends, the memory stays, the exit code says so', async () => {
    const model = await script('long', [{ text: `${REPLY} `.repeat(20), delayMs: 30_000 }, UPDATE]);
    const agentId = uniqueId('stream-interrupt');
    const send = BackgroundCli.start(['send', agentId, 'Tell me everything.'], place(model));
    await waitFor(() => send.stdout.length > 0, { timeoutMs: 60_000, what: 'the first words' });
    send.interrupt();
    const interrupted = Date.now();
    const code = await send.exitCode();
    expect(Date.now() - interrupted).toBeLessThan(10_000);
    expect(code).toBe(3);
    expect(send.stderr).toContain('(cancelling the turn…)');
    expect(send.stderr).toMatch(/cycle agent\/.*\/cycle\/1: cancelled/);
    const cycle = await env.client.workflow.getHandle(cycleWorkflowId(agentId, 1)).describe();
    expect(cycle.status.name).toBe('CANCELLED');
  }, 120_000);

  it('with a worker of its own, returns once the reply has ended, while reflect still runs', async () => {
    const bundle = await bundleWorkflows();
    const script: ScriptEntry[] = [{ text: REPLY }, { ...UPDATE, delayMs: 8_000 }];
    const { worker, taskQueue } = await scriptedWorker(env, bundle, script, 'stream-external');
    const agentId = uniqueId('stream-external');
    await worker.runUntil(async () => {
      const sent = await runCli(['send', agentId, 'Porto?'], {
        home,
        taskQueue,
        env: { SCRATCHPAD_IN_PROCESS_WORKER: 'false' },
      });
      expect(sent).toMatchObject({ code: 0, stdout: `${REPLY}\n` });
      // The agent still reflects on the turn.
      expect((await new Agents(env.client).status(agentId)).running?.cycleId).toBe(cycleWorkflowId(agentId, 1));
      await new Agents(env.client).waitForCycle({ agentId }, cycleWorkflowId(agentId, 1));
    });
  }, 120_000);
});

describe('scratchpad chat streams', () => {
  it('prints each reply as it comes, and a slow call raises no listener warning', async () => {
    const model = await script('chat', [{ text: REPLY, delayMs: 6_000 }, UPDATE]);
    const chat = await runCli(['chat', uniqueId('stream-chat')], {
      ...place(model),
      input: 'Porto?\n',
      timeoutMs: 60_000,
    });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain(`agent> ${REPLY}\n`);
    expect(chat.stdout).toContain('(memory updated: trajectory_now');
    expect(chat.stderr).not.toContain('MaxListenersExceededWarning');
  }, 120_000);

  it('--no-stream: the reply once it has ended, and a slow call raises no listener warning either', async () => {
    const model = await script('chat-whole', [{ text: REPLY, delayMs: 6_000 }, UPDATE]);
    const args = ['chat', uniqueId('stream-chat-whole'), '--no-stream'];
    const chat = await runCli(args, { ...place(model), input: 'Porto?\n', timeoutMs: 60_000 });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain(`agent> ${REPLY}\n`);
    expect(chat.stderr).not.toContain('MaxListenersExceededWarning');
  }, 120_000);
});
