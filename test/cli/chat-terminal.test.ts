import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import type { Scratchpad } from '../../src/core/scratchpad/scratchpad';
import { BIN, cliEnvironment, runCli } from '../helpers/cli';
import { testEnvironment, waitFor } from '../helpers/temporal';

/**
 * `scratchpad chat` in a real terminal: tmux gives the command a pseudo-terminal, so readline runs as a person meets
 * it (raw mode, Ctrl-C as a key), and its screen is read back with capture-pane.
 */
const TMUX = '/usr/bin/tmux';
const run = promisify(execFile);

let env: TestWorkflowEnvironment;
let home: string;
const socket = `scratchpad-chat-${process.pid}`;
let session = 'chat';

function tmux(...args: string[]): Promise<{ stdout: string }> {
  return run(TMUX, ['-L', socket, ...args]);
}

async function screen(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', session)).stdout;
}

/** {@link waitFor} on the terminal, often (replies are timed); returns the value and when it first held. */
async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number, what: string) {
  try {
    const value = await waitFor(probe, accept, { timeoutMs, intervalMs: 40, what });
    return { value, at: Date.now() };
  } catch (error) {
    throw new Error(`${String(error)}; screen:\n${await screen()}`);
  }
}

async function script(name: string, lines: object[]): Promise<string> {
  const file = path.join(home, `${name}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

async function memo(agentId: string): Promise<{ scratchpad?: Scratchpad }> {
  return ((await env.client.workflow.getHandle(agentWorkflowId(agentId)).describe()).memo ?? {}) as {
    scratchpad?: Scratchpad;
  };
}

function status(workflowId: string): Promise<string> {
  return env.client.workflow
    .getHandle(workflowId)
    .describe()
    .then((description) => description.status.name);
}

/** Whether the cycle's model call has started on a worker (it then sleeps: the slow respond). */
async function modelCallStarted(workflowId: string): Promise<boolean> {
  const { raw } = await env.client.workflow.getHandle(workflowId).describe();
  return (raw.pendingActivities ?? []).some(
    (activity) => activity.activityType?.name === 'callModel' && Number(activity.state) === 2,
  );
}

/** Starts `scratchpad chat AGENT` in a new tmux session, which {@link screen} and the keys sent then address. */
async function startChat(name: string, agentId: string, place: { home: string; taskQueue: string }, model: string) {
  session = name;
  const variables = cliEnvironment({
    ...place,
    env: { SCRATCHPAD_MODEL: model, SCRATCHPAD_IN_PROCESS_WORKER: 'true', TERM: 'xterm-256color' },
  });
  const assignments = Object.entries(variables).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  // The exit code stays on the screen after chat ends; the pane lives on so it can be read.
  const command = `env -i ${assignments.join(' ')} ${process.execPath} ${BIN} chat ${agentId}; echo "chat exited $?"; sleep 600`;
  await tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50', command);
}

beforeAll(async () => {
  env = await testEnvironment();
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-chat-terminal-'));
});

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  await env?.teardown();
});

describe('chat in a terminal', () => {
  it('Ctrl-C mid-turn cancels the turn within 2 s, leaves the memory, and strands nothing for later commands', async () => {
    const agentId = `chat-terminal-${process.pid}-${Date.now()}`;
    const place = { home, taskQueue: `chat-terminal-${process.pid}-${Date.now()}` };
    const chatModel = await script('chat', [
      { text: 'Hello, Ada.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada', trajectory_now: 'Greeted Ada' } },
      { text: 'An answer that takes a minute.', delayMs: 60_000 },
    ]);
    await startChat('chat', agentId, place, chatModel);

    await until(screen, (text) => text.includes('you> '), 60_000, 'the first prompt');
    await tmux('send-keys', '-t', session, 'Hi, I am Ada.', 'Enter');
    await until(screen, (text) => text.includes('agent> Hello, Ada.'), 60_000, 'the first reply');
    const remembered = await until(
      () => memo(agentId),
      (current) => current.scratchpad?.identity.user === 'Ada',
      30_000,
      "the first turn's reflect",
    );
    const before = remembered.value.scratchpad;

    await tmux('send-keys', '-t', session, 'Tell me slowly.', 'Enter');
    const turn = cycleWorkflowId(agentId, 2);
    await until(() => modelCallStarted(turn), Boolean, 30_000, 'the slow model call');
    const promptsBefore = (await screen()).split('you> ').length;
    const pressed = Date.now();
    await tmux('send-keys', '-t', session, 'C-c');
    const back = await until(
      screen,
      (text) => text.includes('(turn cancelled)') && text.split('you> ').length > promptsBefore,
      10_000,
      'the prompt after Ctrl-C',
    );
    expect(back.at - pressed).toBeLessThan(2000);
    expect(await status(turn)).toBe('CANCELLED');
    expect((await memo(agentId)).scratchpad).toEqual(before);

    // Ctrl-C at the prompt leaves.
    await tmux('send-keys', '-t', session, 'C-c');
    const left = await until(screen, (text) => /chat exited \d+/.test(text), 30_000, 'chat to exit');
    expect(left.value).toContain('chat exited 0');
    expect(left.value).not.toMatch(/\n\s+at /);

    // A later command with another model runs its own turn; the cancelled one stays cancelled and never runs again.
    const laterModel = await script('later', [
      { text: 'Still here.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Answered after a cancelled turn' } },
    ]);
    const later = await runCli(['send', agentId, 'Are you there?'], {
      ...place,
      env: { SCRATCHPAD_MODEL: laterModel, SCRATCHPAD_IN_PROCESS_WORKER: 'true' },
    });
    expect(later).toMatchObject({ code: 0 });
    expect(later.stdout).toContain('Still here.');
    expect(await status(turn)).toBe('CANCELLED');
    expect(await status(cycleWorkflowId(agentId, 3))).toBe('COMPLETED');
    const after = (await memo(agentId)).scratchpad;
    expect(after?.trajectory.now).toBe('Answered after a cancelled turn');
    expect(after?.identity.user).toBe('Ada');
    await expect(status(cycleWorkflowId(agentId, 4))).rejects.toThrow();
    await env.client.workflow
      .getHandle(agentWorkflowId(agentId))
      .terminate()
      .catch(() => undefined);
  }, 240_000);

  it('a second Ctrl-C while the turn is cancelled leaves, once the cancellation has ended', async () => {
    const agentId = `chat-twice-${process.pid}-${Date.now()}`;
    const place = { home, taskQueue: `chat-twice-${process.pid}-${Date.now()}` };
    await startChat('twice', agentId, place, await script('twice', [{ text: 'Never said.', delayMs: 60_000 }]));
    await until(screen, (text) => text.includes('you> '), 60_000, 'the first prompt');
    await tmux('send-keys', '-t', session, 'Tell me slowly.', 'Enter');
    const turn = cycleWorkflowId(agentId, 1);
    await until(() => modelCallStarted(turn), Boolean, 30_000, 'the slow model call');
    const pressed = Date.now();
    await tmux('send-keys', '-t', session, 'C-c', 'C-c');
    const left = await until(screen, (text) => /chat exited \d+/.test(text), 30_000, 'chat to exit');
    expect(left.at - pressed).toBeLessThan(5000);
    expect(left.value).toContain('chat exited 0');
    expect(await status(turn)).toBe('CANCELLED');
    const memo = (await env.client.workflow.getHandle(agentWorkflowId(agentId)).describe()).memo as {
      status?: { cycleCount: number };
    };
    expect(memo.status?.cycleCount).toBe(1);
    await env.client.workflow
      .getHandle(agentWorkflowId(agentId))
      .terminate()
      .catch(() => undefined);
  }, 120_000);

  it('a failed turn prints its reason in one line: no stack, no empty reply', async () => {
    const agentId = `chat-failed-${process.pid}-${Date.now()}`;
    const place = { home, taskQueue: `chat-failed-${process.pid}-${Date.now()}` };
    const model = await script('failing', [
      { error: { type: 'ModelError.Auth', message: '401 bad key', nonRetryable: true } },
    ]);
    const chat = await runCli(['chat', agentId], {
      ...place,
      env: { SCRATCHPAD_MODEL: model, SCRATCHPAD_IN_PROCESS_WORKER: 'true' },
      input: 'Hi, I am Ada.\n',
    });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toBe(`(cycle ${cycleWorkflowId(agentId, 1)} failed: ModelError.Auth: 401 bad key)\n`);
    expect(`${chat.stdout}${chat.stderr}`).not.toMatch(/\n\s+at /);
    await env.client.workflow
      .getHandle(agentWorkflowId(agentId))
      .terminate()
      .catch(() => undefined);
  }, 120_000);
});
