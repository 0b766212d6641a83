import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CliRun, runCli, useSharedWorker } from '../helpers/cli';
import { uniqueId } from '../helpers/temporal';

let home: string;
/** The shared worker's sandbox: a worker has one, where its tools write and verification runs. */
let sandbox: string;
const taskQueue = `staged-cli-${process.pid}`;

function scratchpad(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { home, taskQueue, env });
}

/** A staged run served by the file's shared worker, with the script it names and that worker's sandbox. */
function staged(args: string[], model: string): Promise<CliRun> {
  return scratchpad(['staged', ...args, '--model', model], {
    SCRATCHPAD_IN_PROCESS_WORKER: 'false',
    SCRATCHPAD_SANDBOX: sandbox,
  });
}

/** A script of its own for each command: the worker keeps its place in a script from one command to the next. */
async function scriptedModel(lines: object[]): Promise<string> {
  const file = path.join(home, `${uniqueId('model')}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

/** The shared sandbox, emptied: a test finds no file an earlier one left, as in a sandbox of its own. */
async function freshSandbox(): Promise<string> {
  for (const entry of await fs.readdir(sandbox)) await fs.rm(path.join(sandbox, entry), { recursive: true });
  return sandbox;
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-staged-cli-'));
  sandbox = await fs.mkdtemp(path.join(home, 'sandbox-'));
});

useSharedWorker(() => ({ home, taskQueue, env: { SCRATCHPAD_SANDBOX: sandbox } }));

describe('scratchpad staged', () => {
  it('says up front that no --verify means at best unverified, and exits 5 when that is the outcome', async () => {
    const sandbox = await freshSandbox();
    const model = await scriptedModel([
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a' } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
    ]);
    const run = await staged(['--agent', `cli-${Date.now()}`, '--task', 'write a.txt', '--no-staged'], model);
    expect(run.stderr).toContain('the best outcome is "unverified" (exit code 5)');
    expect(run.stdout).toContain(': unverified — the stages finished but no verification command was given');
    expect(run.code).toBe(5);
    expect(await fs.readFile(path.join(sandbox, 'a.txt'), 'utf8')).toBe('a');
  });

  it('exits 0 when verification passes and 3 when it still fails after the repairs', async () => {
    await freshSandbox();
    const lines = [
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a' } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
      { tool: 'fs_write', args: { path: 'c.txt', content: 'c' } },
      { tool: 'done', args: { summary: 'wrote c.txt' } },
    ];
    const agent = `cli-${Date.now()}`;
    const passed = await staged(
      ['--agent', agent, '--task', 'a', '--verify', 'test -f a.txt'],
      await scriptedModel(lines),
    );
    expect(passed.stdout).toContain(': verified — `test -f a.txt` passed');
    expect(passed.code).toBe(0);
    const failed = await staged(
      ['--agent', agent, '--task', 'b', '--verify', 'test -f b.txt', '--max-repairs', '1', '--json'],
      await scriptedModel(lines),
    );
    expect(JSON.parse(failed.stdout)).toMatchObject({ workflowId: `staged/${agent}/2`, outcome: 'failed' });
    expect(failed.code).toBe(3);
  });

  it('rejects bad flags with exit code 2', async () => {
    const env = { SCRATCHPAD_MODEL: await scriptedModel([{ tool: 'done', args: { summary: 'x' } }]) };
    expect((await scratchpad(['staged', '--task', 'x'], env)).code).toBe(2);
    expect((await scratchpad(['staged', '--agent', 'a', '--task', 'x', '--max-paths', '0'], env)).code).toBe(2);
    const missing = await scratchpad(
      ['staged', '--agent', 'a', '--task', 'x', '--prior-scratchpad', '/nonexistent'],
      env,
    );
    expect(missing.stderr).toContain('cannot read the prior scratchpad /nonexistent');
    expect(missing.code).toBe(2);
  });

  it('prints what happened: no plan, a stage that changed nothing after its corrections, a run that changed nothing', async () => {
    await freshSandbox();
    const done = { tool: 'done', args: { summary: 'all done' } };
    // The plan call's one corrective retry gets no plan either.
    const model = await scriptedModel([{ text: 'No plan needed.' }, { text: 'No plan needed.' }, done, done, done]);
    const agent = `cli-${Date.now()}`;
    const run = await staged(['--agent', agent, '--task', 'add an API route', '--staged'], model);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      `Staged run staged/${agent}/1: unverified — the stages finished but no verification command was given; ` +
        'no stage changed any file',
    );
    expect(lines).toContain('Note: the model gave no plan: running the task as one stage');
    expect(lines).toContain('  stage-1-retry-2 (correction): completed, no_change after 2 correction(s)');
    expect(run.code).toBe(5);
  });

  it('--prior-scratchpad last names the run it read, and is an error when no run left notes', async () => {
    await freshSandbox();
    const agent = `cli-last-${Date.now()}`;
    const write = { tool: 'fs_write', args: { path: 'a.txt', content: 'a', scratchpad: { next: 'b.txt' } } };
    const done = { tool: 'done', args: { summary: 'wrote it' } };
    const script = () => scriptedModel([write, done, write, done]);
    const none = await staged(['--agent', agent, '--task', 'a', '--prior-scratchpad', 'last'], await script());
    expect(none.stderr).toContain(`no finished task cycle or staged run of ${agent} left run-local notes`);
    expect(none.code).toBe(2);
    const first = await staged(['--agent', agent, '--task', 'a', '--no-staged'], await script());
    expect(first.code).toBe(5);
    let second = none;
    // Visibility lists a closed run shortly after it closes.
    for (let tries = 0; tries < 20 && second.code === 2; tries++) {
      second = await staged(
        ['--agent', agent, '--task', 'b', '--no-staged', '--prior-scratchpad', 'last'],
        await script(),
      );
    }
    expect(second.stderr).toMatch(
      new RegExp(`Prior scratchpad: the notes of staged run staged/${agent}/1, finished \\d{4}-`),
    );
    expect(second.code).toBe(5);
  });

  it('staged demo: a scripted model builds a Node module offline; node --test fails, a repair fixes it', async () => {
    const run = await scratchpad(['staged', 'demo']);
    expect(run.stdout).toMatch(/^Staged run staged\/staged-demo-\d+\/1: verified — `node --test` passed/);
    expect(run.stdout).toContain('Verification 1: `node --test` failed');
    expect(run.stdout).toContain('Verification 2: `node --test` passed');
    expect(run.stdout).toContain('Sandbox now holds: slug.js, slug.test.js');
    expect(run.code).toBe(0);
  });
});
