import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  BIN,
  BackgroundCli,
  type CliPlace,
  type CliRun,
  cliEnvironment,
  runCli,
  useSharedWorker,
} from '../helpers/cli';
import { uniqueId } from '../helpers/temporal';

let home: string;
/** The shared worker's sandbox: only the staged run writes files. */
let sandbox: string;
const taskQueue = `progress-cli-${process.pid}`;
const aloneQueue = `progress-cli-alone-${process.pid}`;

/** Where a command served by the file's shared worker runs: a cycle names its model (`--model`). */
function shared(env: Record<string, string> = {}): CliPlace {
  return { home, taskQueue, env: { SCRATCHPAD_IN_PROCESS_WORKER: 'false', ...env } };
}

function scratchpad(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { ...shared(env), timeoutMs: 90_000 });
}

/**
 * A command of an encrypted agent, whose payloads the shared worker (without the key) could not read: on a task queue
 * no worker polls, it runs one in its process, with SCRATCHPAD_MODEL.
 */
function alone(args: string[], env: Record<string, string>): Promise<CliRun> {
  return runCli(args, {
    home,
    taskQueue: aloneQueue,
    env: { SCRATCHPAD_IN_PROCESS_WORKER: 'true', ...env },
    timeoutMs: 90_000,
  });
}

async function script(lines: object[]): Promise<string> {
  const file = path.join(home, `${uniqueId('model')}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

/** Runs the command on a pseudo-terminal (`script`), as a person at a terminal would: what the terminal got. */
function onTerminal(args: string[]): Promise<string> {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    execFile('script', ['-qfec', command, '/dev/null'], { env: cliEnvironment(shared()), timeout: 90_000 }, (_e, out) =>
      resolve(out),
    );
  });
}

function agentName(): string {
  return uniqueId('progress');
}

/** Fails unless every piece occurs in `text`, each after the one before. */
function expectInOrder(text: string, pieces: (string | RegExp)[]): void {
  let from = 0;
  for (const piece of pieces) {
    const rest = text.slice(from);
    const match = typeof piece === 'string' ? { index: rest.indexOf(piece), length: piece.length } : rest.match(piece);
    if (!match || match.index === undefined || match.index < 0) {
      throw new Error(`expected ${String(piece)} after offset ${from} in:\n${text}`);
    }
    from += match.index + (typeof piece === 'string' ? piece.length : (match as RegExpMatchArray)[0].length);
  }
}

// A cycle that updates the scratchpad and calls a tool in its first response, then says it is done.
const GREETING = [
  {
    calls: [
      { tool: 'update_scratchpad', args: { trajectory_now: 'greeting' } },
      { tool: 'echo', args: { message: 'hello progress' } },
    ],
    usage: { inputTokens: 100, outputTokens: 10 },
  },
  { tool: 'done', args: { summary: 'said hello' }, usage: { inputTokens: 120, outputTokens: 5 } },
];

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-progress-cli-'));
  sandbox = await fs.mkdtemp(path.join(home, 'sandbox-'));
});

useSharedWorker(() => ({ home, taskQueue, env: { SCRATCHPAD_SANDBOX: sandbox } }));

describe('progress, not silence', () => {
  it('cycle AGENT prints each step on stderr as it happens, then a one-line outcome with tokens and cost', async () => {
    const agent = agentName();
    // Encrypted payloads: the steps and the result are read through the client's codec.
    const run = await alone(['cycle', agent, '--task', 'greet'], {
      SCRATCHPAD_MODEL: await script(GREETING),
      SCRATCHPAD_ENCRYPTION_KEY: `progress:${randomBytes(32).toString('base64')}`,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Cycle agent/${agent}/cycle/1: completed after 2 iteration(s)`);
    expectInOrder(run.stderr, [
      `agent/${agent}/cycle/1 running`,
      'model call 1 (cycle)…',
      'model call 1: 2 call(s), 100 input / 10 output tokens',
      'scratchpad updated: trajectory_now',
      '→ echo {"message":"hello progress"}',
      /← \d+ bytes/,
      'model call 2: 1 call(s), 120 input / 5 output tokens',
      'done: said hello',
      `agent/${agent}/cycle/1: completed after 2 iteration(s); 220 input / 15 output tokens; cost $0.0000`,
    ]);
    // Not a terminal: plain lines, no waiting indicator drawn in place.
    expect(run.stderr).not.toMatch(/[\r\u001b]/);
  }, 120_000);

  it('on a terminal, a waiting indicator with elapsed seconds runs while the model thinks, then is erased', async () => {
    const agent = agentName();
    const [first, ...rest] = GREETING;
    const model = await script([{ ...first, delayMs: 2500 }, ...rest]);
    const out = await onTerminal(['cycle', agent, '--task', 'greet', '--model', model]);
    expect(out).toMatch(/\r\u001b\[K {2}model call 1 \(cycle\) \S 2s/);
    // Erased before the call's line: the line starts clean, not after the indicator.
    expect(out).toMatch(/\r\u001b\[K {2}model call 1: 2 call\(s\), 100 input \/ 10 output tokens/);
    expect(out).not.toContain('model call 1 (cycle)…');
    expect(out).toContain(`agent/${agent}/cycle/1: completed after 2 iteration(s); 220 input / 15 output tokens`);
  }, 120_000);

  it('shows a call waiting for approval, a directive and the decision as they happen', async () => {
    const agent = agentName();
    const model = await script([
      { tool: 'echo', args: { message: 'needs a person' } },
      { tool: 'done', args: { summary: 'approved and done' } },
    ]);
    expect((await scratchpad(['configure', agent, '--create', '--approve', 'echo'])).code).toBe(0);
    const cycle = BackgroundCli.start(['cycle', agent, '--task', 'ask first', '--model', model], shared());
    try {
      await cycle.waitForStderr(/waiting for approval: echo/, 60_000);
      expect((await scratchpad(['directive', agent, 'keep it short'])).code).toBe(0);
      await cycle.waitForStderr(/directive received/, 30_000);
      expect((await scratchpad(['approve', agent])).code).toBe(0);
      await cycle.waitForStderr(/: completed after 2 iteration\(s\)/, 60_000);
      expectInOrder(cycle.stderr, [
        /waiting for approval: echo \{"message":"needs a person"\} \(call \S+; scratchpad approve \/ deny\)/,
        'directive received (the model sees it at its next call): keep it short',
        /approval decided: call \S+/,
        '→ echo {"message":"needs a person"}',
        /← \d+ bytes/,
        'done: approved and done',
        `agent/${agent}/cycle/1: completed after 2 iteration(s)`,
      ]);
    } finally {
      await cycle.stop();
    }
  }, 180_000);

  it('--agent still names the agent, --json prints only the result, and a queued task is said up front', async () => {
    const agent = agentName();
    const enqueued = await scratchpad(['enqueue', agent, '--task', 'first thing']);
    expect(enqueued.code).toBe(0);
    const model = await script(GREETING);
    const run = await scratchpad(['cycle', '--agent', agent, '--task', 'second thing', '--json', '--model', model]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ workflowId: `agent/${agent}/cycle/1`, outcome: 'completed' });
    expect(run.stderr).toContain(`the agent's current task is "first thing"; "second thing" is queued after it`);
    expect(run.stderr).not.toContain('model call');
    expect(run.stderr).not.toContain('→ echo');

    const both = await scratchpad(['cycle', agent, '--agent', 'someone-else', '--task', 'x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('differ');
    const neither = await scratchpad(['cycle', '--task', 'x']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('cycle needs an AGENT');
  }, 120_000);

  it('wake --follow follows the cycle the wake starts to its outcome, or says none started', async () => {
    const agent = agentName();
    // Encrypted payloads: the steps are read through the client's codec.
    const encrypted = { SCRATCHPAD_ENCRYPTION_KEY: `progress:${randomBytes(32).toString('base64')}` };
    const model = { ...encrypted, SCRATCHPAD_MODEL: await script([{ tool: 'done', args: { summary: 'unused' } }]) };
    expect((await alone(['enqueue', agent, '--task', 'greet'], model)).code).toBe(0);
    const run = await alone(['wake', agent, '--follow'], {
      ...encrypted,
      SCRATCHPAD_MODEL: await script(GREETING),
    });
    expect(run.code).toBe(0);
    expectInOrder(run.stderr, [
      `agent/${agent}/cycle/1 running`,
      '→ echo {"message":"hello progress"}',
      'done: said hello',
      `agent/${agent}/cycle/1: completed after 2 iteration(s); 220 input / 15 output tokens`,
    ]);

    const started = Date.now();
    const idle = await alone(['wake', agent, '--follow'], model);
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain(`No task was pending, so agent/${agent} started no cycle.`);
    // The command waits about 2 s after the wake; the rest is starting a process and its in-process worker.
    expect(Date.now() - started).toBeLessThan(30_000);

    const unknown = await alone(['wake', agentName(), '--follow'], model);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no agent');
  }, 120_000);

  it('staged AGENT shows each stage as it runs', async () => {
    const agent = agentName();
    const model = await script([
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a' } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
    ]);
    const run = await scratchpad(
      ['staged', agent, '--task', 'write a.txt', '--no-staged', '--verify', 'test -f a.txt', '--model', model],
      { SCRATCHPAD_SANDBOX: sandbox },
    );
    expect(run.code).toBe(0);
    expectInOrder(run.stderr, [
      `Running staged/${agent}/1…`,
      'stage stage-1 running',
      '→ fs_write {"path":"a.txt","content":"a"}',
      /← \d+ bytes/,
      'done: wrote a.txt',
      'stage stage-1: completed after 2 iteration(s)',
      'verification: `test -f a.txt`…',
      'verification passed',
    ]);
    expect(run.stdout).toContain(': verified');
  }, 120_000);
});
