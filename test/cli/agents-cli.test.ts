import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import YAML from 'yaml';
import { BackgroundCli, type CliRun, runCli, useSharedWorker } from '../helpers/cli';
import { testServerAddress, uniqueId, waitFor } from '../helpers/temporal';
import { encryptionDataConverter } from '../../src/common/encryption-codec';

let home: string;
let connection: Connection;
let client: Client;
const background: BackgroundCli[] = [];
const taskQueue = `agents-cli-${process.pid}`;

/**
 * No worker of this process and no model: what a read-only command must manage with. The file's other commands find
 * the file's shared worker on `taskQueue`.
 */
const READ_ONLY = { SCRATCHPAD_IN_PROCESS_WORKER: 'false' };

function scratchpad(args: string[], env: Record<string, string> = READ_ONLY, queue = taskQueue): Promise<CliRun> {
  return runCli(args, { home, taskQueue: queue, env, timeoutMs: 90_000 });
}

/** `--model` for a script the shared worker replays. */
async function script(lines: object[]): Promise<string[]> {
  const file = path.join(home, `${uniqueId('model')}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return ['--model', `scripted:${file}`];
}

function agentName(): string {
  return uniqueId('agents-cli');
}

function oneLineError(run: CliRun, code: number, message: string): void {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code, stderr: `scratchpad: ${message}\n` });
}

const noAgent = (agentId: string) => `no agent "${agentId}" (scratchpad agents list shows the agents)`;

/** Entries of the observation store the commands share, by agent id. */
function storedTurns(): string[] {
  const db = new Database(path.join(home, 'observations.db'), { readonly: true });
  try {
    return (db.prepare('SELECT turn_id FROM entries').all() as { turn_id: string }[]).map((row) => row.turn_id);
  } finally {
    db.close();
  }
}

/**
 * An agent with one completed task cycle (echo, then done), run by the shared worker; with `alone`, on a task queue of
 * its own by a worker in the command's process, which has exited since: no worker serves that agent any more.
 */
async function agentWithCycle(message = 'hello', options: { alone?: boolean } = {}): Promise<string> {
  const agent = agentName();
  const model = await script([
    { tool: 'echo', args: { message } },
    { tool: 'done', args: { summary: 'said hello' } },
  ]);
  const args = ['cycle', '--agent', agent, '--task', 'say hello', ...model];
  const run = options.alone
    ? await scratchpad(args, { SCRATCHPAD_IN_PROCESS_WORKER: 'true' }, uniqueId('agents-cli-alone'))
    : await scratchpad(args);
  expect(run.stdout).toContain(`Cycle agent/${agent}/cycle/1: completed`);
  return agent;
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-agents-cli-'));
  connection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection });
});

afterAll(async () => {
  for (const command of background) await command.stop();
  await connection?.close();
});

useSharedWorker(() => ({ home, taskQueue }));

describe('read-only commands', () => {
  it('status, export, show, trace and snapshots need no worker and no model', async () => {
    const agent = await agentWithCycle('hello', { alone: true });
    const status = await scratchpad(['status', agent]);
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^agent ${agent}: 1 cycle\\(s\\) in 1 run\\(s\\); idle\\n`));
    expect(status.stdout).toContain('\nsettings:\n  model: ');
    expect(status.stdout).toContain('\n  maxIterations: 10\n');
    expect(status.stdout).not.toContain('{');
    const json = JSON.parse((await scratchpad(['status', agent, '--json'])).stdout);
    expect(json).toMatchObject({ agentId: agent, cycleCount: 1, running: null, settings: { maxIterations: 10 } });

    const exported = await scratchpad(['export', agent]);
    expect(exported.stderr).toBe('');
    expect(JSON.parse(exported.stdout)).toMatchObject({
      format: 'durable-scratchpad/agent-v1',
      agentId: agent,
      turn: 1,
      scratchpad: { completed_tasks: [{ task: 'say hello', summary: 'said hello' }] },
    });
    const shown = await scratchpad(['show', agent]);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain('summary: said hello');

    const trace = await scratchpad(['trace', agent, '--out', '-']);
    expect(trace.stderr).toBe('');
    expect(JSON.parse(trace.stdout)).toMatchObject([
      { turn: 1, cycleId: `agent/${agent}/cycle/1`, outcome: 'completed' },
    ]);

    const snapshots = await scratchpad(['snapshots', agent, '--out', '-']);
    expect(snapshots.stderr).toBe('');
    const documents = YAML.parseAllDocuments(snapshots.stdout);
    expect(documents.map((document) => document.errors)).toEqual([[], [], []]);
    expect(snapshots.stdout).toMatch(/^--- # 0001_\d{8}_\d{6}_before\.yaml$/m);
    expect(snapshots.stdout).toMatch(/^--- # 0001_\d{8}_\d{6}_after\.yaml$/m);
    expect(snapshots.stdout).toMatch(/^--- # active\.yaml$/m);
    expect(documents[2]!.toJS()).toMatchObject({ completed_tasks: [{ task: 'say hello' }] });

    const configured = await scratchpad(['configure', agent]);
    expect(configured).toMatchObject({ code: 0, stderr: '' });
    expect(configured.stdout).toMatch(/^model: .+\nreflectModel: .+\ntwoPhase: true\nmaxIterations: 10\n/);
  }, 120_000);
  it('status and export show settings just configured, before any cycle ran with them', async () => {
    const agent = await agentWithCycle();
    const configured = await scratchpad(['configure', agent, '--max-iterations', '3']);
    expect(configured.code).toBe(0);
    const status = JSON.parse((await scratchpad(['status', agent, '--json'])).stdout);
    expect(status.settings.maxIterations).toBe(3);
    const exported = JSON.parse((await scratchpad(['export', agent])).stdout);
    expect(exported.settings.maxIterations).toBe(3);
  });
});

describe('unknown agents', () => {
  it('directive, wake, status, export, show, inject, configure, diff say so in one line; directive creates nothing', async () => {
    const nobody = agentName();
    for (const args of [
      ['directive', nobody, 'hello'],
      ['wake', nobody],
      ['status', nobody],
      ['export', nobody],
      ['show', nobody],
      ['trace', nobody, '--out', '-'],
      ['diff', nobody, '1'],
    ]) {
      oneLineError(await scratchpad(args), 1, noAgent(nobody));
    }
    oneLineError(await scratchpad(['inject', nobody, 'workspace', 'x']), 1, noAgent(nobody));
    oneLineError(await scratchpad(['configure', nobody, '--budget', '5000']), 1, noAgent(nobody));
    await expect(client.workflow.getHandle(`agent/${nobody}`).describe()).rejects.toThrow(WorkflowNotFoundError);

    const created = await scratchpad(['directive', nobody, 'hello', '--create']);
    expect(created).toMatchObject({ code: 0, stdout: `Directive sent to agent/${nobody}.\n` });
    expect((await client.workflow.getHandle(`agent/${nobody}`).describe()).status.name).toBe('RUNNING');
  }, 120_000);
});

describe('agents list and delete', () => {
  it('lists every agent although one carries a memo this client cannot decrypt', async () => {
    const sealed = agentName();
    const keys = [{ id: 'other', key: new Uint8Array(randomBytes(32)) }];
    const encrypted = new Client({ connection, dataConverter: encryptionDataConverter(keys) });
    const handle = await encrypted.workflow.start('agent', {
      taskQueue: `${taskQueue}-nobody-polls`,
      workflowId: `agent/${sealed}`,
      args: [{ agentId: sealed }],
      memo: { scratchpad: { notes: 'sealed' } },
    });
    try {
      const kept = await agentWithCycle();
      const listed = await scratchpad(['agents', 'list']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toMatch(new RegExp(`^${sealed} `, 'm'));
      expect(listed.stdout).toMatch(new RegExp(`^${kept} +1 +completed`, 'm'));
    } finally {
      await handle.terminate('test over');
    }
  });

  it('lists agents with their cycles and last outcome, newest first; delete ends one and purges its observations', async () => {
    const kept = await agentWithCycle('x'.repeat(6000));
    const deleted = await agentWithCycle('y'.repeat(6000));
    const listed = await scratchpad(['agents', 'list']);
    expect(listed.stderr).toBe('');
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^AGENT +CYCLES +LAST OUTCOME +LAST ACTIVE +AWAITING APPROVAL +STATE$/);
    expect(lines.findIndex((line) => line.startsWith(`${deleted} `))).toBeLessThan(
      lines.findIndex((line) => line.startsWith(`${kept} `)),
    );
    expect(listed.stdout).toMatch(new RegExp(`^${deleted} +1 +completed +\\d{4}-\\d\\d-\\d\\d \\S+Z +- +idle$`, 'm'));
    const json = JSON.parse((await scratchpad(['agents', 'list', '--json'])).stdout) as { agentId: string }[];
    expect(json.find((agent) => agent.agentId === deleted)).toMatchObject({
      cycleCount: 1,
      lastOutcome: 'completed',
      state: 'RUNNING',
      running: [],
    });
    expect(storedTurns()).toEqual(expect.arrayContaining([`agent/${kept}/cycle/1`, `agent/${deleted}/cycle/1`]));

    const removal = await scratchpad(['agents', 'delete', deleted, '--purge']);
    expect(removal.stderr).toBe('');
    expect(removal.code).toBe(0);
    expect(removal.stdout).toContain(`Terminated agent/${deleted}.\n`);
    expect(removal.stdout).toMatch(new RegExp(`Deleted [1-9]\\d* stored observation\\(s\\) of ${deleted} from `));
    expect((await client.workflow.getHandle(`agent/${deleted}`).describe()).status.name).toBe('TERMINATED');
    expect(storedTurns().filter((turn) => turn.startsWith(`agent/${deleted}/`))).toEqual([]);
    expect(storedTurns()).toContain(`agent/${kept}/cycle/1`);
    expect((await scratchpad(['agents', 'list'])).stdout).toMatch(
      new RegExp(`^${deleted} +1 +completed .* ended \\(terminated\\)$`, 'm'),
    );
  }, 180_000);

  it('delete terminates a cycle that runs', async () => {
    const agent = agentName();
    const model = await script([{ delayMs: 120_000, tool: 'done', args: { summary: 'never' } }]);
    const cycle = BackgroundCli.start(['cycle', '--agent', agent, '--task', 'wait', ...model], {
      home,
      taskQueue,
      env: READ_ONLY,
    });
    background.push(cycle);
    const running = await waitFor(
      async () => {
        const listed = JSON.parse((await scratchpad(['agents', 'list', '--json'])).stdout) as {
          agentId: string;
          running: string[];
        }[];
        return listed.find((entry) => entry.agentId === agent)?.running ?? [];
      },
      (cycles) => cycles.length > 0,
      { timeoutMs: 60_000, intervalMs: 250, what: `a running cycle of ${agent}` },
    );
    expect(running).toEqual([`agent/${agent}/cycle/1`]);
    expect((await scratchpad(['status', agent])).stdout).toContain(`; running agent/${agent}/cycle/1`);

    const removal = await scratchpad(['agents', 'delete', agent]);
    expect(removal.code).toBe(0);
    expect(removal.stdout).toContain(`Terminated agent/${agent}.\n`);
    const cycleState = await client.workflow.getHandle(`agent/${agent}/cycle/1`).describe();
    expect(cycleState.status.name).toBe('TERMINATED');
    const nobody = agentName();
    oneLineError(await scratchpad(['agents', 'delete', nobody]), 1, noAgent(nobody));
  }, 180_000);
});

describe('readable results', () => {
  it('inject prints the section as it now is; configure prints the settings it leaves', async () => {
    const agent = agentName();
    expect((await scratchpad(['enqueue', agent, '--goal', 'be kind'])).code).toBe(0);
    expect((await scratchpad(['inject', agent, 'identity_user', 'Ann'])).stdout).toBe('identity_user: Ann\n');
    const appended = await scratchpad(['inject', agent, 'identity_user', 'APPEND: likes tea']);
    expect(appended).toMatchObject({ code: 0, stdout: 'identity_user:\n  Ann\n  likes tea\n' });
    const configured = await scratchpad(['configure', agent, '--budget', '7000']);
    expect(configured.stdout).toContain('\nbudgetChars: 7000\n');
    const json = await scratchpad(['configure', agent, '--max-iterations', '3', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ budgetChars: 7000, maxIterations: 3 });
  }, 120_000);

  it('import names what is wrong with a bad file in one line and changes nothing', async () => {
    const agent = agentName();
    const list = path.join(home, 'list.json');
    await fs.writeFile(list, '[1, 2]');
    oneLineError(
      await scratchpad(['import', agent, list]),
      2,
      `${list} does not hold a valid scratchpad: expected an object of scratchpad keys`,
    );
    const broken = path.join(home, 'broken.yaml');
    await fs.writeFile(broken, 'goals: [\n');
    const unreadable = await scratchpad(['import', agent, broken]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(new RegExp(`^scratchpad: cannot read ${broken}: .+\\n$`));
    const wrong = path.join(home, 'wrong.json');
    await fs.writeFile(wrong, JSON.stringify({ goals: 'one', identity: { purpose: 7 } }));
    expect((await scratchpad(['import', agent, wrong])).stderr).toBe(
      `scratchpad: ${wrong} does not hold a valid scratchpad: goals: Invalid input: expected array, received string; ` +
        'identity.purpose: Invalid input: expected string, received number\n',
    );
    await expect(client.workflow.getHandle(`agent/${agent}`).describe()).rejects.toThrow(WorkflowNotFoundError);
  }, 60_000);
});
