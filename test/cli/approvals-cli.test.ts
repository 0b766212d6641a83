import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { hasPollers } from '../../src/clients/task-queues';
import type { PendingCall } from '../../src/clients/approvals';
import type { CycleResult } from '../../src/core/cycle/input';
import { BackgroundCli, type CliRun, runCli } from '../helpers/cli';
import { testServerAddress, uniqueId, waitFor } from '../helpers/temporal';

/**
 * Durable approvals as a person meets them: `approvals`, `approve`, `deny`, `configure --approve`, `tools`, `status`,
 * `chat`'s inline question and the stock Temporal CLI, all against one `scratchpad worker` on the test dev server.
 * Each agent runs its own script (`configure --cycle-model scripted:FILE`), which the worker allows with
 * SCRATCHPAD_MODELS.
 */

const QUEUE = `approvals-cli-${process.pid}-${Date.now()}`;
const TEMPORAL = path.join(os.homedir(), '.cache', 'durable-scratchpad', 'bin', 'temporal');
const ME = os.userInfo().username;

let home: string;
let connection: Connection;
let client: Client;
let worker: BackgroundCli;

function scratchpad(args: string[], input?: string): Promise<CliRun> {
  return runCli(args, {
    home,
    taskQueue: QUEUE,
    // The file's worker serves every command: none may run one of its own (and each can run in the test's process).
    env: { SCRATCHPAD_MODEL: `scripted:${path.join(home, 'none.jsonl')}`, SCRATCHPAD_IN_PROCESS_WORKER: 'false' },
    ...(input !== undefined && { input }),
    timeoutMs: 90_000,
  });
}

/** A refusal as the CLI prints it: one line, no stack. */
function expectOneLineError(run: CliRun, code: number, message: string | RegExp): void {
  expect(run.stderr).toMatch(/^scratchpad: [^\n]*\n$/);
  expect(run.code).toBe(code);
  if (typeof message === 'string') expect(run.stderr).toContain(message);
  else expect(run.stderr).toMatch(message);
}

async function script(name: string, lines: object[]): Promise<string> {
  const file = path.join(home, `${name}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

/** A new agent that runs `lines` and asks before `shell` runs. */
async function agentWith(lines: object[], approve = 'shell'): Promise<string> {
  const agent = uniqueId('approver');
  const model = await script(agent, lines);
  const configured = await scratchpad([
    'configure',
    agent,
    '--create',
    '--json',
    '--cycle-model',
    model,
    '--approve',
    approve,
  ]);
  expect(configured.stderr).toBe('');
  expect(configured.code).toBe(0);
  expect(JSON.parse(configured.stdout)).toMatchObject({ model, approve: approve.split(',') });
  return agent;
}

/** The calls `approvals AGENT --json` lists once it lists one that `ready` accepts. */
async function waitForCalls(agent: string, ready: (calls: PendingCall[]) => boolean): Promise<PendingCall[]> {
  const run = await waitFor(
    () => scratchpad(['approvals', agent, '--json']),
    // A command that complains ends the wait, to fail on its stderr below.
    (answer) => answer.stderr !== '' || ready(JSON.parse(answer.stdout) as PendingCall[]),
    { timeoutMs: 60_000, intervalMs: 500, what: `a call of ${agent} to wait` },
  );
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as PendingCall[];
}

/** The result of an agent's cycle once it has finished. */
async function cycleResult(cycleId: string): Promise<CycleResult> {
  await waitFor(() => client.workflow.getHandle(cycleId).describe(), {
    timeoutMs: 60_000,
    intervalMs: 500,
    what: `${cycleId} to start`,
  });
  return client.workflow.getHandle(cycleId).result();
}

/** The commands the cycle's `runTool` activities ran, from its history: what really ran, and how often. */
async function commandsRun(cycleId: string): Promise<string[]> {
  const { events } = await client.workflow.getHandle(cycleId).fetchHistory();
  return (events ?? [])
    .map((event) => event.activityTaskScheduledEventAttributes)
    .filter((scheduled) => scheduled?.activityType?.name === 'runTool')
    .map((scheduled) => JSON.parse(Buffer.from(scheduled?.input?.payloads?.[0]?.data ?? []).toString('utf-8')))
    .filter((request: { name?: string }) => request.name === 'shell')
    .map((request: { args: { command: string } }) => request.args.command);
}

function temporalCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(TEMPORAL, [...args, '--address', testServerAddress()], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-approvals-cli-'));
  connection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection });
  await fs.writeFile(path.join(home, 'none.jsonl'), '');
  worker = BackgroundCli.start(['worker'], {
    home,
    taskQueue: QUEUE,
    env: {
      SCRATCHPAD_MODEL: `scripted:${path.join(home, 'none.jsonl')}`,
      SCRATCHPAD_MODELS: 'scripted:*',
      SCRATCHPAD_APPROVE: 'fs_write',
    },
  });
  await worker.waitForStderr(/Worker polling/, 120_000);
  // Commands that find no poller would start a worker of their own: wait until the server lists this one.
  await waitFor(() => hasPollers(client, QUEUE), { timeoutMs: 60_000, what: 'the server to list the worker' });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await connection?.close();
});

describe('scratchpad approvals, approve and deny', () => {
  it('lists a waiting call, approves it as given and edited, denies one with a reason the model sees', async () => {
    const agent = await agentWith([
      { tool: 'shell', args: { command: 'echo first' } },
      { tool: 'shell', args: { command: 'echo original' } },
      { tool: 'shell', args: { command: 'echo second' } },
      // Answered only if the model's next prompt carries the denial as the observation.
      { match: ['denied by tester: not today'], tool: 'done', args: { summary: 'adapted to the denial' } },
    ]);
    const cycleId = `agent/${agent}/cycle/1`;
    expect(await scratchpad(['approvals', agent])).toMatchObject({
      code: 0,
      stdout: `No tool call of ${agent} is waiting for a decision.\n`,
    });
    expectOneLineError(await scratchpad(['approve', agent]), 1, `no tool call of ${agent} is waiting for a decision`);

    expect((await scratchpad(['wake', agent, '--task', 'look around'])).code).toBe(0);
    const [first] = await waitForCalls(agent, (calls) => calls.length === 1);
    expect(first).toMatchObject({ tool: 'shell', cycleId, agentId: agent, target: agent, iteration: 1 });
    expect(JSON.parse(first!.args)).toEqual({ command: 'echo first' });
    // Across agents too, as visibility finds them.
    const everyone = JSON.parse((await scratchpad(['approvals', '--json'])).stdout) as PendingCall[];
    expect(everyone.filter((call) => call.agentId === agent)).toEqual([first]);
    const table = await scratchpad(['approvals']);
    expect(table.stdout).toMatch(/^TARGET +CALL +TOOL +REQUESTED +EXPIRES +CALL AS GIVEN$/m);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${agent} +${first!.callId.replace('.', '\\.')} +shell .*shell\\(\\{"command":"echo first"\\}\\)$`,
        'm',
      ),
    );
    const status = await scratchpad(['status', agent]);
    expect(status.stdout).toContain('awaiting approval: 1 call(s)');
    expect(status.stdout).toContain(`${first!.callId} shell({"command":"echo first"}) in ${cycleId}`);

    expectOneLineError(await scratchpad(['approve', agent, '99.9']), 2, /rejected: .*99\.9/);
    expectOneLineError(await scratchpad(['approve', agent, '--args', '[1]']), 2, 'got an array');
    expectOneLineError(await scratchpad(['approve', agent, '--args', '{"command":7}']), 2, /rejected: .*command/);
    const approved = await scratchpad(['approve', agent]);
    expect(approved).toMatchObject({
      code: 0,
      stdout: `Approved shell call ${first!.callId} of ${cycleId} (by ${ME})\n`,
    });
    expectOneLineError(
      await scratchpad(['approve', agent, first!.callId]),
      2,
      /rejected: call [0-9.]+ was already decided: approved by /,
    );

    const [second] = await waitForCalls(agent, (calls) => calls.some((call) => call.args.includes('original')));
    const edited = await scratchpad(['approve', agent, second!.callId, '--args', '{"command":"echo edited"}']);
    expect(edited.stdout).toContain(`with arguments {"command":"echo edited"} (by ${ME})`);
    const [third] = await waitForCalls(agent, (calls) => calls.some((call) => call.args.includes('second')));
    const denied = await scratchpad(['deny', agent, third!.callId, '--reason', 'not today', '--by', 'tester']);
    expect(denied).toMatchObject({
      code: 0,
      stdout: `Denied shell call ${third!.callId} of ${cycleId} (by tester): not today\n`,
    });

    const result = await cycleResult(cycleId);
    expect(result.outcome).toBe('completed');
    expect((result as { decisions?: unknown[] }).decisions).toMatchObject([
      { callId: first!.callId, decision: 'approve', by: ME },
      { callId: second!.callId, decision: 'approve', by: ME, editedArgs: '{"command":"echo edited"}' },
      { callId: third!.callId, decision: 'deny', by: 'tester', reason: 'not today' },
    ]);
    // Exactly the approved calls ran, once each, the edited one as edited; the denied one never did.
    expect(await commandsRun(cycleId)).toEqual(['echo first', 'echo edited']);
    expect((await scratchpad(['approvals', agent])).stdout).toContain('is waiting for a decision');
  }, 240_000);

  it('the stock Temporal CLI finds a waiting agent and decides its call', async () => {
    const agent = await agentWith([
      { tool: 'shell', args: { command: 'echo stock' } },
      { tool: 'done', args: { summary: 'ran it' } },
    ]);
    expect((await scratchpad(['wake', agent, '--task', 'run it'])).code).toBe(0);
    const [call] = await waitForCalls(agent, (calls) => calls.length === 1);
    const listed = await temporalCli(['workflow', 'list', '--query', 'AwaitingApproval = true', '--output', 'json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`"agent/${agent}"`);
    // The line the README documents, word for word but for the call id.
    const input = JSON.stringify({ callId: call!.callId, decision: 'approve', by: 'ops' });
    const decided = await temporalCli([
      ...['workflow', 'update', 'execute', '--workflow-id', `agent/${agent}`, '--name', 'decide'],
      ...['--input', input],
    ]);
    expect(decided.stderr).toBe('');
    expect(decided.code).toBe(0);
    expect(decided.stdout).toMatch(/Result +map\[.*by:ops .*decision:approve tool:shell\]/);
    const again = await temporalCli([
      ...['workflow', 'update', 'execute', '--workflow-id', `agent/${agent}`, '--name', 'decide'],
      ...['--input', input],
    ]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already decided|no call/);
    const result = await cycleResult(`agent/${agent}/cycle/1`);
    expect((result as { decisions?: unknown[] }).decisions).toMatchObject([{ decision: 'approve', by: 'ops' }]);
    expect(await commandsRun(`agent/${agent}/cycle/1`)).toEqual(['echo stock']);
  }, 180_000);
});

describe('a cycle no agent runs', () => {
  it("a staged run's stage waits under the worker's policy; approve AGENT finds it and decides it directly", async () => {
    const agent = uniqueId('stager');
    const model = await script(agent, [
      { tool: 'fs_write', args: { path: 'staged-approval.txt', content: 'approved' } },
      { tool: 'done', args: { summary: 'wrote it' } },
    ]);
    const staged = scratchpad([
      'staged',
      '--agent',
      agent,
      '--task',
      'write the file',
      '--no-staged',
      '--model',
      model,
    ]);
    // The agent workflow never started: the stage is found through visibility, by its AgentId.
    const [call] = await waitForCalls(agent, (calls) => calls.length === 1);
    expect(call).toMatchObject({ tool: 'fs_write', agentId: agent, target: call!.cycleId });
    expect(call!.cycleId).toMatch(new RegExp(`^staged/${agent}/1/`));
    expect(call!.context).toMatch(/^stage /);
    const table = await scratchpad(['approvals']);
    expect(table.stdout).toMatch(new RegExp(`^${call!.cycleId} +${call!.callId.replace('.', '\\.')} +fs_write `, 'm'));
    const approved = await scratchpad(['approve', agent, '--by', 'reviewer']);
    expect(approved.stdout).toBe(`Approved fs_write call ${call!.callId} of ${call!.cycleId} (by reviewer)\n`);
    const run = await staged;
    expect(run.stdout).toContain(': unverified');
    expect(run.code).toBe(5);
    expect((await scratchpad(['approvals', agent])).stdout).toContain('is waiting for a decision');
  }, 180_000);
});

describe('chat asks inline', () => {
  it('y runs the call, e runs it with the arguments typed, Enter denies it', async () => {
    const agent = await agentWith([
      { tool: 'shell', args: { command: 'echo from-chat' } },
      { text: 'It printed from-chat.' },
      { tool: 'update_scratchpad', args: {} },
      { tool: 'shell', args: { command: 'echo draft' } },
      { text: 'Ran your edit.' },
      { tool: 'update_scratchpad', args: {} },
      { tool: 'shell', args: { command: 'echo third' } },
      { text: 'Not running it.' },
      { tool: 'update_scratchpad', args: {} },
      { tool: 'shell', args: { command: 'echo later' } },
      { text: 'Ran it later.' },
      { tool: 'update_scratchpad', args: {} },
    ]);
    // Input ends while the last turn's call waits: chat leaves, and the call waits on for a decision made elsewhere.
    const lines = ['run it', 'y', 'and again', 'e', '{"command":"echo edited-in-chat"}', 'once more', '', 'later'];
    const chat = await scratchpad(['chat', agent], `${lines.join('\n')}\n`);
    expect(chat.stderr).not.toContain('scratchpad:');
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('run shell({"command":"echo from-chat"})? [y/N/e(dit)] y\n');
    expect(chat.stdout).toContain('agent> It printed from-chat.');
    expect(chat.stdout).toContain('run shell({"command":"echo draft"})? [y/N/e(dit)] e\n');
    expect(chat.stdout).toContain('arguments (one line of JSON)> {"command":"echo edited-in-chat"}\n');
    expect(chat.stdout).toContain('agent> Ran your edit.');
    expect(chat.stdout).toContain('run shell({"command":"echo third"})? [y/N/e(dit)] \n');
    expect(chat.stdout).toContain('agent> Not running it.');
    expect(await commandsRun(`agent/${agent}/cycle/1`)).toEqual(['echo from-chat']);
    expect(await commandsRun(`agent/${agent}/cycle/2`)).toEqual(['echo edited-in-chat']);
    expect(await commandsRun(`agent/${agent}/cycle/3`)).toEqual([]);
    const third = await cycleResult(`agent/${agent}/cycle/3`);
    expect((third as { decisions?: unknown[] }).decisions).toMatchObject([
      { decision: 'deny', by: ME, reason: 'denied in chat' },
    ]);
    const [later] = await waitForCalls(agent, (calls) => calls.length === 1);
    expect(later).toMatchObject({ cycleId: `agent/${agent}/cycle/4` });
    expect(chat.stdout).toContain(
      `[y/N/e(dit)] \n(call ${later!.callId} still waits: scratchpad approve ${agent} ${later!.callId}, or deny)`,
    );
    expect((await scratchpad(['approve', agent])).code).toBe(0);
    expect((await cycleResult(`agent/${agent}/cycle/4`)).outcome).toBe('completed');
    expect(await commandsRun(`agent/${agent}/cycle/4`)).toEqual(['echo later']);
  }, 240_000);
});

describe('approval settings', () => {
  it('configure adds and removes approve patterns and sets the timeout; tools shows each policy', async () => {
    const agent = await agentWith([], 'shell,fs_*');
    const removed = await scratchpad([
      'configure',
      agent,
      '--json',
      '--no-approve',
      'fs_*,web_fetch',
      '--approval-timeout',
      '2h',
    ]);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ approve: ['shell'], approvalTimeoutMs: 7_200_000 });
    expect(removed.stderr).toBe(
      "Warning: web_fetch not in the agent's approve setting: the worker's and the tools' own approval policies " +
        'cannot be waived per agent.\n',
    );
    const added = await scratchpad(['configure', agent, '--json', '--approve', 'echo']);
    expect(JSON.parse(added.stdout)).toMatchObject({ approve: ['shell', 'echo'], approvalTimeoutMs: 7_200_000 });

    const tools = await scratchpad(['tools']);
    expect(tools.stdout).toMatch(/^NAME +SOURCE +POLICY +APPROVAL +DESCRIPTION$/m);
    // The worker's SCRATCHPAD_APPROVE makes fs_write ask for every agent.
    expect(tools.stdout).toMatch(/^fs_write +builtin +\S.* +ask +/m);
    expect(tools.stdout).toMatch(/^shell +builtin +\S.* +auto +/m);
    const forAgent = await scratchpad(['tools', '--agent', agent]);
    expect(forAgent.stdout).toMatch(/^\* shell +builtin +\S.* +ask \(agent\) +/m);
    expect(forAgent.stdout).toMatch(/^\* fs_write +builtin +\S.* +ask +/m);
    const json = JSON.parse((await scratchpad(['tools', '--json'])).stdout) as {
      tools: { name: string; policy: { approval: string } }[];
    };
    expect(json.tools.find((tool) => tool.name === 'fs_write')?.policy.approval).toBe('ask');
    expect(json.tools.find((tool) => tool.name === 'shell')?.policy.approval).toBe('auto');
    const agentJson = JSON.parse((await scratchpad(['tools', '--agent', agent, '--json'])).stdout) as {
      asks: string[];
    };
    expect(agentJson.asks.sort()).toEqual(['echo', 'fs_write', 'shell']);

    const help = await scratchpad(['configure', '--help']);
    expect(help.stdout).toMatch(/--no-approve <list> +.*cannot be waived/s);
  }, 120_000);
});
