import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CliRun, runCli } from '../helpers/cli';
import YAML from 'yaml';
import type { Scratchpad } from '../../src/core/scratchpad/scratchpad';
import { uniqueId } from '../helpers/temporal';

let home: string;

function scratchpad(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliRun> {
  return runCli(args, {
    home,
    taskQueue: `cli-${process.pid}`,
    env,
    ...(input !== undefined && { input }),
    timeoutMs: 60_000,
  });
}

async function script(name: string, lines: object[]): Promise<string> {
  const file = path.join(home, `${name}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

/** A command that needs no worker or fails first: it may not run one (and can run in the test's process). */
const NO_WORKER = { SCRATCHPAD_IN_PROCESS_WORKER: 'false' };

function agentName(): string {
  return uniqueId('cli-agent');
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-cli-'));
});

describe('scratchpad CLI', () => {
  it('refuses to run a cycle without a usable model and says how to configure one', async () => {
    const run = await scratchpad(['cycle', '--agent', 'nobody', '--task', 'x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No usable model is configured');
    expect(run.stderr).toContain('SCRATCHPAD_MODEL=openai:');
  });

  it('a worker that cannot reach the server says so in one line', async () => {
    const model = await script('unreachable', [{ content: '{}' }]);
    const run = await scratchpad(['worker', '--model', model], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'scratchpad: the Temporal server is unavailable: Connection refused at 127.0.0.1:1 ' +
        '(is it running? TEMPORAL_ADDRESS names it)\n',
    );
  });

  it('rejects bad flags and bad configuration with exit code 2 or a named variable', async () => {
    const badFlag = await scratchpad(['cycle', '--agent', 'a', '--max-iterations', 'zero'], NO_WORKER);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('invalid --max-iterations "zero"');
    for (const value of ['1e3', '201', '0x10']) {
      const overCap = await scratchpad(['cycle', '--agent', 'a', '--task', 'x', '--max-iterations', value], NO_WORKER);
      expect(overCap).toMatchObject({
        code: 2,
        stderr: `scratchpad: invalid --max-iterations "${value}": expected a whole number from 1 to 200\n`,
      });
    }
    const badFormat = await scratchpad(['show', 'a', '--format', 'xml'], NO_WORKER);
    expect(badFormat.code).toBe(2);
    const badAddress = await scratchpad(['show', 'a'], { ...NO_WORKER, TEMPORAL_ADDRESS: 'not an address' });
    expect(badAddress.code).toBe(1);
    expect(badAddress.stderr).toContain('TEMPORAL_ADDRESS');
    const badAgent = await scratchpad(['send', '../etc', 'hi'], {
      ...NO_WORKER,
      SCRATCHPAD_MODEL: 'scripted:/nonexistent',
    });
    expect(badAgent.code).toBe(2);
    expect(badAgent.stderr).toContain('invalid agent id');
  });

  it('runs cycles with documented exit codes and shows the result', async () => {
    const agent = agentName();
    const model = await script('cycles', [
      { tool: 'echo', args: { message: 'one' } },
      { tool: 'done', args: { summary: 'finished first' } },
      { tool: 'echo', args: { message: 'two' } },
      { error: { type: 'ModelError.Auth', message: '401 bad key', nonRetryable: true } },
    ]);
    const env = { SCRATCHPAD_MODEL: model };
    const completed = await scratchpad(['cycle', '--agent', agent, '--task', 'first task'], env);
    expect(completed.stderr).toContain('running one in this process');
    expect(completed.code).toBe(0);
    expect(completed.stdout).toContain(`Cycle agent/${agent}/cycle/1: completed after 2 iteration(s)`);
    expect(completed.stdout).toContain('current_task: first task → null');

    // The in-process worker of each command starts the script over, so give each command its own script.
    const maxed = await scratchpad(['cycle', '--agent', agent, '--task', 'second', '--max-iterations', '1', '--json'], {
      SCRATCHPAD_MODEL: await script('maxed', [{ tool: 'echo', args: { message: 'two' } }]),
    });
    expect(maxed.code).toBe(4);
    expect(JSON.parse(maxed.stdout)).toMatchObject({ outcome: 'max_iterations', workflowId: `agent/${agent}/cycle/2` });

    const failed = await scratchpad(['cycle', '--agent', agent], {
      SCRATCHPAD_MODEL: await script('failed', [
        { error: { type: 'ModelError.Auth', message: '401 bad key', nonRetryable: true } },
      ]),
    });
    expect(failed.code).toBe(3);
    expect(failed.stdout).toContain('Error: ModelError.Auth: 401 bad key');

    const shown = await scratchpad(['show', agent, '--format', 'json'], NO_WORKER);
    expect(shown.code).toBe(0);
    const active = JSON.parse(shown.stdout) as Scratchpad;
    expect(active.notes).toBe(`Cycle agent/${agent}/cycle/3 failed: ModelError.Auth: 401 bad key`);
    expect(active.last_updated).not.toBeNull();

    const before = await scratchpad(['show', `agent/${agent}/cycle/1`, '--state', 'before'], NO_WORKER);
    expect(YAML.parse(before.stdout).current_task).toBe('first task');

    const out = path.join(home, `snapshots-${agent}`);
    const snapshots = await scratchpad(['snapshots', agent, '--out', out], NO_WORKER);
    expect(snapshots.code).toBe(0);
    const files = (await fs.readdir(out)).sort();
    expect(files).toHaveLength(7);
    expect(files).toContain('active.yaml');
  }, 120_000);

  it('chats, steers, exports and imports through the agent workflow', async () => {
    const agent = agentName();
    const model = await script('chat', [
      { text: 'Hello Ada.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada' } },
      { text: 'Still Ada.' },
      { tool: 'update_scratchpad', args: {} },
    ]);
    const env = { SCRATCHPAD_MODEL: model };
    const chat = await scratchpad(
      ['chat', agent],
      env,
      'Hi, I am Ada\n/scratchpad\n/directive be brief\nWho am I?\n/quit\n',
    );
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('agent> Hello Ada.');
    expect(chat.stdout).toContain('### User\nAda');
    expect(chat.stdout).toContain('(directive sent)');
    expect(chat.stdout).toContain('agent> Still Ada.');

    const exported = await scratchpad(['export', agent], { SCRATCHPAD_MODEL: await script('none', []) });
    expect(exported.code).toBe(0);
    const file = path.join(home, `${agent}.json`);
    await fs.writeFile(file, exported.stdout);
    const document = JSON.parse(exported.stdout);
    expect(document.scratchpad.identity.user).toBe('Ada');
    expect(document.turn).toBe(2);

    const copy = agentName();
    const imported = await scratchpad(['import', copy, file], { SCRATCHPAD_MODEL: await script('none2', []) });
    expect(imported.code).toBe(0);
    const shown = JSON.parse((await scratchpad(['show', copy, '--format', 'json'], NO_WORKER)).stdout) as Scratchpad;
    expect(shown).toEqual(document.scratchpad);

    const traceFile = path.join(home, `${agent}-trace.json`);
    const trace = await scratchpad(['trace', agent, '--out', traceFile], NO_WORKER);
    expect(trace.code).toBe(0);
    const turns = JSON.parse(await fs.readFile(traceFile, 'utf8'));
    expect(turns.map((turn: { input: string; response: string }) => [turn.input, turn.response])).toEqual([
      ['Hi, I am Ada', 'Hello Ada.'],
      ['Who am I?', 'Still Ada.'],
    ]);
    expect(turns[1].directives).toEqual([{ text: 'be brief', iteration: 1 }]);
    expect(turns[0].scratchpad_after.identity.user).toBe('Ada');

    const badInject = await scratchpad(['inject', copy, 'not_a_section', 'x'], {
      SCRATCHPAD_MODEL: await script('n3', []),
    });
    expect(badInject.code).toBe(2);
    expect(badInject.stderr).toContain('rejected');
  }, 120_000);

  it('keeps worker logs out of the conversation: a retried rate limit is in worker.log, not in send output', async () => {
    const agent = agentName();
    const model = await script('rate-limited', [
      { error: { type: 'ModelError.RateLimit', message: '429 slow down', nextRetryDelayMs: 100 } },
      { text: 'Answered after a retry.' },
      // An update that changes the memory: one that did not would add its own line to stderr.
      { tool: 'update_scratchpad', args: { trajectory_now: 'Answered a greeting' } },
    ]);
    const sent = await scratchpad(['send', agent, 'Hello'], { SCRATCHPAD_MODEL: model });
    expect(sent).toMatchObject({ code: 0, stdout: 'Answered after a retry.\n' });
    expect(sent.stderr).not.toMatch(/WARN|Activity failed|taskToken/);
    // The in-process worker's one line, and what the turn did to the memory.
    expect(sent.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('running one in this process'),
      'memory updated: trajectory_now −24',
    ]);
    const log = await fs.readFile(path.join(home, 'worker.log'), 'utf8');
    expect(log).toContain('429 slow down');
  }, 60_000);

  it("keeps the native core's log lines out of the conversation too, in worker.log", async () => {
    const agent = agentName();
    const model = await script('core-logs', [
      { text: 'Quiet reply.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Answered quietly' } },
    ]);
    // At DEBUG the core writes many lines a turn; its default console would put them on stdout.
    const sent = await scratchpad(['send', agent, 'Hello'], { SCRATCHPAD_MODEL: model, SCRATCHPAD_LOG_LEVEL: 'DEBUG' });
    expect(sent).toMatchObject({ code: 0, stdout: 'Quiet reply.\n' });
    const log = await fs.readFile(path.join(home, 'worker.log'), 'utf8');
    expect(log).toMatch(/\[DEBUG\] .*sdkComponent: 'core'/);
  }, 60_000);

  it('refuses a cycle with no task to work on instead of spending its model calls', async () => {
    const agent = agentName();
    const run = await scratchpad(['cycle', agent], { SCRATCHPAD_MODEL: await script('no-task', []) });
    expect(run).toMatchObject({
      code: 2,
      stderr: `scratchpad: agent/${agent} has no task to work on: give one with --task\n`,
    });
    const shown = await scratchpad(['show', agent], NO_WORKER);
    expect(shown.stderr).toContain(`no agent "${agent}"`);
  });
});
