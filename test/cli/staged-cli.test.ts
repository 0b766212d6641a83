import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CliRun, runCli } from '../helpers/cli';

let home: string;

function scratchpad(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { home, taskQueue: `staged-cli-${process.pid}-${Date.now()}`, env });
}

async function scriptedModel(lines: object[]): Promise<string> {
  const file = path.join(home, `model-${Date.now()}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-staged-cli-'));
});

describe('scratchpad staged', () => {
  it('says up front that no --verify means at best unverified, and exits 5 when that is the outcome', async () => {
    const sandbox = await fs.mkdtemp(path.join(home, 'sandbox-'));
    const model = await scriptedModel([
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a' } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
    ]);
    const run = await scratchpad(['staged', '--agent', `cli-${Date.now()}`, '--task', 'write a.txt', '--no-staged'], {
      SCRATCHPAD_MODEL: model,
      SCRATCHPAD_SANDBOX: sandbox,
    });
    expect(run.stderr).toContain('the best outcome is "unverified" (exit code 5)');
    expect(run.stdout).toContain(': unverified — the stages finished but no verification command was given');
    expect(run.code).toBe(5);
    expect(await fs.readFile(path.join(sandbox, 'a.txt'), 'utf8')).toBe('a');
  });

  it('exits 0 when verification passes and 3 when it still fails after the repairs', async () => {
    const sandbox = await fs.mkdtemp(path.join(home, 'sandbox-'));
    const model = await scriptedModel([
      { tool: 'fs_write', args: { path: 'a.txt', content: 'a' } },
      { tool: 'done', args: { summary: 'wrote a.txt' } },
      { tool: 'fs_write', args: { path: 'c.txt', content: 'c' } },
      { tool: 'done', args: { summary: 'wrote c.txt' } },
    ]);
    const env = { SCRATCHPAD_MODEL: model, SCRATCHPAD_SANDBOX: sandbox };
    const agent = `cli-${Date.now()}`;
    const passed = await scratchpad(['staged', '--agent', agent, '--task', 'a', '--verify', 'test -f a.txt'], env);
    expect(passed.stdout).toContain(': verified — `test -f a.txt` passed');
    expect(passed.code).toBe(0);
    const failed = await scratchpad(
      ['staged', '--agent', agent, '--task', 'b', '--verify', 'test -f b.txt', '--max-repairs', '1', '--json'],
      env,
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
    const sandbox = await fs.mkdtemp(path.join(home, 'sandbox-'));
    const done = { tool: 'done', args: { summary: 'all done' } };
    // The plan call's one corrective retry gets no plan either.
    const model = await scriptedModel([{ text: 'No plan needed.' }, { text: 'No plan needed.' }, done, done, done]);
    const agent = `cli-${Date.now()}`;
    const run = await scratchpad(['staged', '--agent', agent, '--task', 'add an API route', '--staged'], {
      SCRATCHPAD_MODEL: model,
      SCRATCHPAD_SANDBOX: sandbox,
    });
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
    const sandbox = await fs.mkdtemp(path.join(home, 'sandbox-'));
    const agent = `cli-last-${Date.now()}`;
    const write = { tool: 'fs_write', args: { path: 'a.txt', content: 'a', scratchpad: { next: 'b.txt' } } };
    const done = { tool: 'done', args: { summary: 'wrote it' } };
    const env = { SCRATCHPAD_MODEL: await scriptedModel([write, done, write, done]), SCRATCHPAD_SANDBOX: sandbox };
    const none = await scratchpad(['staged', '--agent', agent, '--task', 'a', '--prior-scratchpad', 'last'], env);
    expect(none.stderr).toContain(`no finished task cycle or staged run of ${agent} left run-local notes`);
    expect(none.code).toBe(2);
    const first = await scratchpad(['staged', '--agent', agent, '--task', 'a', '--no-staged'], env);
    expect(first.code).toBe(5);
    let second = none;
    // Visibility lists a closed run shortly after it closes.
    for (let tries = 0; tries < 20 && second.code === 2; tries++) {
      second = await scratchpad(
        ['staged', '--agent', agent, '--task', 'b', '--no-staged', '--prior-scratchpad', 'last'],
        env,
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
