import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { BackgroundCli, type CliPlace, type CliRun, runCli } from '../helpers/cli';
import { isServerAnswering } from '../../src/dev-server/server-probe';
import { uniqueId, waitFor } from '../helpers/temporal';

jest.setTimeout(180_000);

const ADDRESS = process.env.TEMPORAL_TEST_ADDRESS ?? '';
const homes: string[] = [];

/** A fresh home and task queue; in-process workers off, as a user has them. */
function place(env: Record<string, string> = {}): CliPlace {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-lifecycle-'));
  homes.push(home);
  return {
    home,
    taskQueue: uniqueId('lifecycle'),
    env: { SCRATCHPAD_IN_PROCESS_WORKER: 'false', ...env },
  };
}

function scratchpad(args: string[], where: CliPlace, env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { ...where, env: { ...where.env, ...env }, timeoutMs: 120_000 });
}

function recordedPids(home: string): number[] {
  const directory = path.join(home, 'workers');
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory).map((name) => Number.parseInt(name, 10));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function writeScript(home: string, lines: object[]): string {
  const file = path.join(home, 'model.jsonl');
  fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

afterEach(() => {
  // Whatever a test's `up` left behind: each background worker leads a process group of its own.
  for (const home of homes) {
    for (const pid of recordedPids(home)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
});
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

describe('scratchpad up / ps / down', () => {
  it('up starts a background worker that serves send with no in-process worker; down stops it, not the server', async () => {
    const where = place();
    const model = writeScript(where.home, [
      { text: 'Hello from the background.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'greeted' } },
    ]);
    where.env = { ...where.env, SCRATCHPAD_MODEL: model };

    const up = await scratchpad(['up'], where);
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`Temporal server: ${ADDRESS} (already running)`);
    expect(up.stdout).toMatch(
      new RegExp(`Worker: pid \\d+, task queue "${where.taskQueue}", model ${model} \\(started`),
    );
    expect(up.stdout).toContain(`Worker logs: ${path.join(where.home, 'worker.log')}`);
    const [pid] = recordedPids(where.home);
    expect(pid).toBeDefined();
    expect(isAlive(pid!)).toBe(true);

    const again = await scratchpad(['up'], where);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Worker: pid ${pid}, task queue "${where.taskQueue}"`);
    expect(again.stdout).toMatch(/\(already running\)\nWorker logs/);
    expect(recordedPids(where.home)).toEqual([pid]);

    const ps = await scratchpad(['ps'], where);
    expect(ps.code).toBe(0);
    expect(ps.stdout).toContain(`Temporal server: ${ADDRESS} answers (not started by scratchpad)`);
    expect(ps.stdout).toMatch(new RegExp(`Worker: pid ${pid}, task queue "${where.taskQueue}".*: running;`));

    const agent = `lifecycle-agent-${Date.now()}`;
    const send = await scratchpad(['send', agent, 'Hi'], where);
    expect(send.stdout).toBe('Hello from the background.\n');
    expect(send.stderr).toBe('');
    expect(send.code).toBe(0);
    expect(fs.readFileSync(path.join(where.home, 'worker.log'), 'utf8')).toContain(
      `Worker polling "${where.taskQueue}"`,
    );

    const down = await scratchpad(['down'], where);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain(`Stopped worker pid ${pid} (task queue "${where.taskQueue}").`);
    expect(down.stdout).toContain(`Left the Temporal server at ${ADDRESS} running: scratchpad did not start it.`);
    expect(isAlive(pid!)).toBe(false);
    expect(await isServerAnswering(ADDRESS)).toBe(true);

    const after = await scratchpad(['ps'], where);
    expect(after.stdout).toContain('No background worker runs');
    expect(after.stdout).not.toContain('Worker: pid');
  });

  it('ps reports a background worker that died as not running', async () => {
    const where = place();
    where.env = { ...where.env, SCRATCHPAD_MODEL: writeScript(where.home, [{ text: 'unused' }]) };
    expect((await scratchpad(['up'], where)).code).toBe(0);
    const [pid] = recordedPids(where.home);
    process.kill(-pid!, 'SIGKILL');
    await waitFor(() => !isAlive(pid!), { timeoutMs: 5000, what: `pid ${pid} to die` });
    const ps = await scratchpad(['ps'], where);
    expect(ps.stdout).toMatch(new RegExp(`Worker: pid ${pid}, .*: NOT RUNNING`));
    expect(ps.stdout).toContain('No background worker runs');
    // Its poller is still listed by the server, yet a command does not wait for it: it fails at once.
    const started = Date.now();
    const send = await scratchpad(['send', `lifecycle-dead-${Date.now()}`, 'Hi'], where);
    expect(send.code).toBe(1);
    expect(send.stderr).toMatch(/^scratchpad: no worker polls task queue/);
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

describe('a command that needs a worker', () => {
  it('with none and in-process workers off, fails with one line naming `scratchpad up`, and leaves no work', async () => {
    const where = place({ SCRATCHPAD_MODEL: 'scripted:/nonexistent.jsonl' });
    const agent = `lifecycle-none-${Date.now()}`;
    const send = await scratchpad(['send', agent, 'Hi'], where);
    expect(send.code).toBe(1);
    expect(send.stdout).toBe('');
    expect(send.stderr).toBe(
      `scratchpad: no worker polls task queue "${where.taskQueue}" at ${ADDRESS}: start one with \`npx scratchpad up\` ` +
        `(in the background, logs in ${path.join(where.home, 'worker.log')}) or \`npx scratchpad worker\` in another ` +
        'terminal\n',
    );
    const connection = await Connection.connect({ address: ADDRESS });
    try {
      const client = new Client({ connection });
      await expect(client.workflow.getHandle(`agent/${agent}`).describe()).rejects.toThrow(/not found/i);
    } finally {
      await connection.close();
    }
  });

  it('with only a gone worker of another host listed, waits for its task to stay unclaimed, then runs one itself', async () => {
    const where = place({ SCRATCHPAD_IN_PROCESS_WORKER: 'true' });
    where.env = { ...where.env, SCRATCHPAD_MODEL: writeScript(where.home, [{ text: 'Served after all.' }]) };
    // A poll from another host, abandoned: the server lists its poller for minutes, and nothing here can tell it gone.
    const connection = await Connection.connect({ address: ADDRESS });
    try {
      const poll = new AbortController();
      const polled = connection.withDeadline(Date.now() + 60_000, () =>
        connection.withAbortSignal(poll.signal, () =>
          connection.workflowService.pollWorkflowTaskQueue({
            namespace: 'default',
            taskQueue: { name: where.taskQueue },
            identity: 'gone@elsewhere.invalid',
          }),
        ),
      );
      const listed = () =>
        connection.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: where.taskQueue },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
      await waitFor(async () => ((await listed()).pollers ?? []).length > 0, { timeoutMs: 10_000, what: 'the poll' });
      poll.abort();
      await polled.catch(() => undefined);
    } finally {
      await connection.close();
    }
    const send = await scratchpad(['send', `lifecycle-gone-${Date.now()}`, 'Hi'], where);
    expect(send.stderr).toContain(`no worker took the task within 3 s on task queue "${where.taskQueue}"`);
    expect(send.stdout).toBe('Served after all.\n');
    expect(send.code).toBe(0);
  });

  it('chat with none says so in one line and ends with its input', async () => {
    const where = place({ SCRATCHPAD_MODEL: 'scripted:/nonexistent.jsonl' });
    const started = Date.now();
    const chat = await runCli(['chat', `lifecycle-chat-${Date.now()}`], { ...where, input: 'Hi\n', timeoutMs: 30_000 });
    expect(chat.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(chat.stderr).toContain(`scratchpad: no worker polls task queue "${where.taskQueue}"`);
  });
});

describe('scratchpad dev', () => {
  it('with a server already answering, says it uses that one and starts none', async () => {
    const where = place({ SCRATCHPAD_MODEL: 'scripted:/nonexistent.jsonl' });
    const dev = BackgroundCli.start(['dev'], where);
    try {
      await dev.waitForStderr(/Worker polling/, 90_000);
      expect(dev.stderr).toContain(`Using the Temporal server already running at ${ADDRESS}; not starting another.`);
      expect(dev.stderr).not.toContain('starting the Temporal dev server');
      expect(dev.stderr).not.toContain('temporal.db');
      expect(fs.existsSync(path.join(where.home, 'temporal.db'))).toBe(false);
    } finally {
      await dev.stop();
    }
  });
});

describe('scratchpad demo', () => {
  it('runs on the background worker `up` leaves, with a fresh agent each time', async () => {
    const where = place();
    const first = await scratchpad(['demo'], where);
    expect(first.stderr).not.toContain('in this process');
    expect(first.code).toBe(0);
    const second = await scratchpad(['demo'], where);
    expect(second.code).toBe(0);
    const agentOf = (run: CliRun) => /^Demo agent: (demo-\S+)$/m.exec(run.stdout)?.[1];
    expect(agentOf(first)).toBeDefined();
    expect(agentOf(second)).toBeDefined();
    expect(agentOf(second)).not.toBe(agentOf(first));
    // The second agent starts empty: nothing of the first run's memory carried over.
    expect(second.stdout).toMatch(/Scratchpad before[^\n]*\n(?:[^\n]*\n)*?\s+completed_tasks: \[\]/);
    expect(second.stdout.match(/Greet the world/g)).toHaveLength(first.stdout.match(/Greet the world/g)!.length);
    for (const run of [first, second]) {
      expect(run.stdout).toContain('Outcome: completed after 6 iteration(s)');
      expect(run.stdout).toContain('`npx scratchpad ps` shows what runs; `npx scratchpad down` stops it.');
      expect(run.stdout).toContain(`\`npx scratchpad show ${agentOf(run)}\``);
    }
    expect(second.stdout).toMatch(/\(already running\)\nWorker logs/);
    expect(recordedPids(where.home)).toHaveLength(1);
    expect((await scratchpad(['down'], where)).code).toBe(0);
  });

  it('with TEMPORAL_ADDRESS on port 1 fails with one line naming it and starts nothing', async () => {
    const where = place({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const demo = await scratchpad(['demo'], where);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toMatch(/^scratchpad: no Temporal server answers at 127\.0\.0\.1:1, [^\n]*\n$/m);
    expect(demo.stderr).not.toContain('starting the Temporal dev server');
    expect(fs.existsSync(path.join(where.home, 'temporal.pid'))).toBe(false);
    expect(recordedPids(where.home)).toEqual([]);
  });

  it('staged demo works in SCRATCHPAD_SANDBOX and research demo on a queue derived from SCRATCHPAD_TASK_QUEUE', async () => {
    const where = place();
    const sandbox = path.join(where.home, 'my-sandbox');
    // One after the other: both demos open the observation store in the same data directory.
    const staged = await scratchpad(['staged', 'demo'], where, { SCRATCHPAD_SANDBOX: sandbox });
    expect({ code: staged.code, stderr: staged.stderr }).toMatchObject({ code: 0 });
    const used = /^Files \(in (\S+)\):/m.exec(staged.stdout)?.[1];
    expect(path.dirname(used ?? '')).toBe(sandbox);
    expect(fs.readdirSync(used!).sort()).toEqual(['slug.js', 'slug.test.js']);
    const research = await scratchpad(['research', 'demo'], where);
    expect({ code: research.code, stderr: research.stderr }).toMatchObject({ code: 0 });
    expect(research.stderr).toContain(`task queue "${where.taskQueue}-research-demo"`);
  });
});
